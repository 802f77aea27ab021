// S2P_SHARED tables read inside loops around steps: a time loop with a run-time trip count whose
// two foralls each map the other's output through their own 16 KiB lookup table at
// data-dependent indices (one at an index built from the loop's variable), the second inside a
// constant inner loop and also reading a small gain table, and a forall after the loops that
// reads a third. The big tables are shared (S2P_SUMMARY=1 on sim: each on a master tile,
// multicast before the forall that reads it), the small one replicated; every launch gets its
// tables whichever iteration it is. shared_fused_in_step_loop.cpp adds a --plan fusion.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kTiles = 12;
constexpr int kSamples = 600;
constexpr int kEntries = 4096;
} // namespace

S2P_KERNEL S2P_TILES(12) void lut_steps(int steps, s2p::field<1, float>& x, s2p::field<1, float>& y,
                                       s2p::field<1, float>& z, const s2p::field<1, int>& codes,
                                       S2P_SHARED const s2p::field<1, float>& curve,
                                       S2P_SHARED const s2p::field<1, float>& ramp,
                                       S2P_SHARED const s2p::field<1, float>& bias,
                                       S2P_SHARED const s2p::field<1, float>& gain) {
  auto map = s2p::resource_map<1>::block_cyclic(x.extent(), {10}, kTiles);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  auto Cd = s2p::agile(codes, map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
      Yd[i] = 0.5f * Xd[i] + curve[{(Cd[i] + t) % kEntries}];
    });
    for (int k = 0; k < 2; ++k)
      s2p::forall(Xd.extent(), [&](s2p::index<1> i) {
        Xd[i] = Yd[i] * gain[{(i[0] + k) % 4}] - ramp[{Cd[i]}] * 0.25f;
      });
  }
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    Zd[i] = Xd[i] + gain[{(i[0] + steps) % 4}] + bias[{Cd[i]}];
  });
}

int main() {
  std::vector<int> codes(kSamples);
  for (int k = 0; k < kSamples; ++k)
    codes[static_cast<std::size_t>(k)] = static_cast<int>((k * 2654435761U) % kEntries);
  std::vector<float> curve(kEntries), ramp(kEntries), bias(kEntries), gain(4);
  std::vector<float> x(kSamples), y(kSamples), z(kSamples);
  for (int c = 0; c < kEntries; ++c) {
    curve[static_cast<std::size_t>(c)] = static_cast<float>((c * 37) % 101) / 64.0f - 0.75f;
    ramp[static_cast<std::size_t>(c)] = static_cast<float>(c % 29) / 16.0f;
    bias[static_cast<std::size_t>(c)] = static_cast<float>(c % 7) - 3.0f;
  }
  for (int g = 0; g < 4; ++g)
    gain[static_cast<std::size_t>(g)] = 0.5f + 0.125f * static_cast<float>(g);
  for (int k = 0; k < kSamples; ++k)
    x[static_cast<std::size_t>(k)] = static_cast<float>(k % 17) * 0.125f;
  s2p::field<1, float> X(x.data(), {kSamples}), Y(y.data(), {kSamples}), Z(z.data(), {kSamples});
  lut_steps(3, X, Y, Z, s2p::field<1, int>(codes.data(), {kSamples}),
            s2p::field<1, float>(curve.data(), {kEntries}),
            s2p::field<1, float>(ramp.data(), {kEntries}),
            s2p::field<1, float>(bias.data(), {kEntries}), s2p::field<1, float>(gain.data(), {4}));
  sample::print_array("x", x.data(), x.size());
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());
  return 0;
}
