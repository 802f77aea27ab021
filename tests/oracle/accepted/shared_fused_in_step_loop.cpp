// S2P_SHARED tables, a loop around steps and a --plan fusion in combination: inside a time
// loop, two foralls each read their own lookup table at data-dependent indices, the second
// reading the first's output at its own index; shared_fused_in_step_loop.plan.json fuses them,
// so the fused forall writes the second output as a further output and reads both tables in
// one launch per iteration (with work stealing, and as 2 and 3 MPI ranks in tests/mpi).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kTiles = 12;
constexpr int kSamples = 600;
constexpr int kEntries = 4096;
} // namespace

S2P_KERNEL S2P_TILES(12) void fused_lut(int steps, s2p::field<1, float>& x,
                                        s2p::field<1, float>& y, const s2p::field<1, int>& codes,
                                        S2P_SHARED const s2p::field<1, float>& curve,
                                        S2P_SHARED const s2p::field<1, float>& ramp) {
  auto map = s2p::resource_map<1>::block_cyclic(x.extent(), {10}, kTiles);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Cd = s2p::agile(codes, map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
      Yd[i] = 0.5f * Xd[i] + curve[{(Cd[i] + t) % kEntries}];
    });
    s2p::forall(Xd.extent(), [&](s2p::index<1> i) {
      Xd[i] = Yd[i] * 0.75f - ramp[{Cd[i]}] * 0.25f;
    });
  }
}

int main() {
  std::vector<int> codes(kSamples);
  for (int k = 0; k < kSamples; ++k)
    codes[static_cast<std::size_t>(k)] = static_cast<int>((k * 2654435761U) % kEntries);
  std::vector<float> curve(kEntries), ramp(kEntries), x(kSamples), y(kSamples);
  for (int c = 0; c < kEntries; ++c) {
    curve[static_cast<std::size_t>(c)] = static_cast<float>((c * 37) % 101) / 64.0f;
    ramp[static_cast<std::size_t>(c)] = static_cast<float>(c % 29) / 16.0f;
  }
  for (int k = 0; k < kSamples; ++k)
    x[static_cast<std::size_t>(k)] = static_cast<float>(k % 17) * 0.125f;
  s2p::field<1, float> X(x.data(), {kSamples}), Y(y.data(), {kSamples});
  fused_lut(3, X, Y, s2p::field<1, int>(codes.data(), {kSamples}),
            s2p::field<1, float>(curve.data(), {kEntries}),
            s2p::field<1, float>(ramp.data(), {kEntries}));
  sample::print_array("x", x.data(), x.size());
  sample::print_array("y", y.data(), y.size());
  return 0;
}
