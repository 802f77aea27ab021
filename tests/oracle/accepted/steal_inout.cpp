// Foralls that read their output at their own index, over maps that deal blocks 6:1:1:1 to
// equally fast tiles, so that work stealing (S2P_WORK_STEALING=greedy, as tests/oracle runs
// these programs too) moves tasks away from tile 0: in the global view
// (`Yd[i] = Yd[i] * 0.5f + Xd[i]`), in a block task (`y[j] += ...`), and in a task split into
// warps that updates its output block in place (s2p::inout<field>). A stolen task must start
// from its block's values, as it would on its owner.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kElements = 8192;
constexpr int kBlock = 64;
} // namespace

S2P_KERNEL S2P_TILES(4) void decay(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {kBlock}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Yd[i] * 0.5f + Xd[i]; });
}

S2P_KERNEL S2P_TILES(4) void accumulate(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {kBlock}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<1> b) {
    const auto yb = Yt(b);
    const auto xb = Xt(b);
    s2p::forall(yb.extent(), [&](s2p::index<1> j) { yb[j] += xb[j] * 3.0f; });
  });
}

S2P_INTRINSIC void load(s2p::in<s2p::field<1, float>> src, s2p::out<float> dst) {
  for (int j = 0; j < kBlock; ++j)
    dst[static_cast<std::size_t>(j)] = src(j);
}
S2P_INTRINSIC void blend(s2p::in<float> x, s2p::inout<s2p::field<1, float>> y) {
  for (int j = 0; j < kBlock; ++j)
    y(j) = y(j) * 0.25f - x[static_cast<std::size_t>(j)];
}

S2P_KERNEL S2P_TILES(4) void blend_blocks(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {kBlock}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<1> b) {
    s2p::pool<float, kBlock> smem;
    auto slot = smem.tensor<1, kBlock>(0);
    auto yb = Yt(b);
    S2P_WARP(0) load(Xt(b), slot[0]);
    S2P_WARP(1) blend(slot[0], yb);
  });
}

int main() {
  std::vector<float> x(kElements), y(kElements);
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = static_cast<float>(k % 97) * 0.25f;
    y[k] = static_cast<float>(k % 13);
  }
  s2p::field<1, float> Y(y.data(), {kElements});
  const s2p::field<1, float> X(x.data(), {kElements});
  decay(Y, X);
  sample::print_array("decay", y.data(), y.size());
  accumulate(Y, X);
  sample::print_array("accumulate", y.data(), y.size());
  blend_blocks(Y, X);
  sample::print_array("blend", y.data(), y.size());
  return 0;
}
