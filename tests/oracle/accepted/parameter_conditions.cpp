// `if` on kernel parameters alone (`if (use_bias)`, `if (K > 4)`), which seq2par cannot
// resolve at transpile time: it generates a version of the kernel for each combination of
// their values and picks one at run time. Written the ways a user would: an optional stage
// with an else, a condition inside a loop with a run-time trip count, the same condition
// twice (one choice), a parameter condition next to per-iteration ones, a loop variable
// shadowing the parameter of the same name (its condition stays per iteration), and a task
// of a multi-tile kernel with an optional warp. Each kernel is called with values that take
// every branch.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <cstdint>
#include <vector>

constexpr int kSlot = 4;

S2P_INTRINSIC void load(s2p::in<std::int64_t> src, s2p::out<std::int64_t> slot) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    slot[e] = src[e];
}

S2P_INTRINSIC void bump(s2p::inout<std::int64_t> slot, std::int64_t by) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    slot[e] = slot[e] * 3 + by;
}

S2P_INTRINSIC void store(s2p::in<std::int64_t> slot, s2p::out<std::int64_t> dst) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    dst[e] = slot[e];
}

// An optional bias stage with an else, a loop whose trip count K is a parameter with a
// stage that runs only for long inputs, and the same condition again at the end.
S2P_KERNEL void staged(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out,
                       int K, int use_bias) {
  s2p::pool<std::int64_t, 3 * kSlot> smem;
  auto ring = smem.tensor<3, kSlot>(0);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(0) load(in[k], ring[k % 3]);
    if (K > 4)
      S2P_WARP(1) bump(ring[k % 3], k);
    if (use_bias)
      S2P_WARP(2) bump(ring[k % 3], 1000);
    else
      S2P_WARP(1) bump(ring[k % 3], -1);
    S2P_WARP(2) store(ring[k % 3], out[k]);
  }
  if (use_bias)
    S2P_WARP(0) store(ring[0], out[20]);
}

// `n > 1` twice: once on the parameter (a version), once on a loop variable that shadows
// it (per iteration). A parameter condition around a loop with conditions of its own.
S2P_KERNEL void shadowed(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out, int n) {
  s2p::pool<std::int64_t, 2 * kSlot> smem;
  auto slots = smem.tensor<2, kSlot>(0);
  S2P_WARP(0) load(in[0], slots[0]);
  if (n > 1)
    S2P_WARP(1) bump(slots[0], 7);
  for (int n = 0; n < 3; ++n)
    if (n > 1)
      S2P_WARP(1) bump(slots[0], n);
  if (n > 1 && n < 10) {
    for (int i = 0; i < 4; ++i) {
      S2P_WARP(0) load(in[i + 1], slots[1]);
      if (i % 2 == 0)
        S2P_WARP(1) bump(slots[1], i);
      S2P_WARP(1) store(slots[1], out[i + 1]);
    }
  }
  S2P_WARP(1) store(slots[0], out[0]);
}

S2P_INTRINSIC void load_block(s2p::in<s2p::field<2, std::int64_t>> src, s2p::out<std::int64_t> dst) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      dst[static_cast<std::size_t>(i * 4 + j)] = src(i, j);
}
S2P_INTRINSIC void store_block(s2p::in<std::int64_t> src, s2p::out<s2p::field<2, std::int64_t>> dst) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      dst(i, j) = src[static_cast<std::size_t>(i * 4 + j)];
}

// A warp task with an optional warp: Y(b) = X(b) (* 3 + 5 when scale).
S2P_KERNEL S2P_TILES(4) void maybe_scale(s2p::field<2, std::int64_t>& Y,
                                         const s2p::field<2, std::int64_t>& X, int scale) {
  auto map = s2p::resource_map<2>::block_block(Y.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    s2p::pool<std::int64_t, 16> smem;
    auto t = smem.tensor<1, 16>(0);
    S2P_WARP(0) load_block(Xt(b), t[0]);
    if (scale)
      S2P_WARP(1) bump(t[0], 5);
    S2P_WARP(2) store_block(t[0], Yt(b));
  });
}

int main() {
  std::vector<std::int64_t> in(64 * kSlot);
  for (std::size_t e = 0; e < in.size(); ++e)
    in[e] = static_cast<std::int64_t>(e * 7 % 23);
  for (const int K : {0, 3, 6})
    for (const int use_bias : {0, 1}) {
      std::vector<std::int64_t> out(64 * kSlot, -1);
      staged({in.data(), 64, kSlot}, {out.data(), 64, kSlot}, K, use_bias);
      sample::print_array("staged", out.data(), out.size());
    }
  for (const int n : {0, 2, 12}) {
    std::vector<std::int64_t> out(8 * kSlot, -1);
    shadowed({in.data(), 64, kSlot}, {out.data(), 8, kSlot}, n);
    sample::print_array("shadowed", out.data(), out.size());
  }
  for (const int scale : {0, 1}) {
    std::vector<std::int64_t> x(256), y(256, 0);
    for (std::size_t e = 0; e < x.size(); ++e)
      x[e] = static_cast<std::int64_t>(e % 19);
    s2p::field<2, std::int64_t> Y(y.data(), {16, 16});
    maybe_scale(Y, s2p::field<2, std::int64_t>(x.data(), {16, 16}), scale);
    sample::print_array("maybe_scale", y.data(), y.size());
  }
  return 0;
}
