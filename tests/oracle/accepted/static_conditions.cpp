// `if` on loop indices, constants and kernel parameters, resolved per iteration where
// seq2par expands the loops (once refused as "control flow must not depend on data"):
// a hand-pipelined prefetch (`if (k + 2 < K)`) into a triple-buffered ring, if/else
// choosing the slot and the warp, && and || that short-circuit past an undefined operand
// (`j != 0 && i / j > 1`), !, an integer tested for truth, a non-affine comparison
// evaluated exactly (i * i), an unsigned comparison that wraps as C++ says, a kernel
// parameter where the loop indices decide (`i < 2 || (i > 100 && n > 5)`), a condition on an inner
// loop's index inside a loop with a run-time trip count, and nested conditions.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <cstdint>

constexpr int K = 10;
constexpr int kSlot = 4;

S2P_INTRINSIC void load(s2p::in<std::int64_t> src, s2p::out<std::int64_t> slot) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    slot[e] = src[e];
}

S2P_INTRINSIC void scale(s2p::in<std::int64_t> slot, s2p::out<std::int64_t> dst,
                         std::int64_t factor) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    dst[e] = slot[e] * factor + static_cast<std::int64_t>(e);
}

S2P_INTRINSIC void bump(s2p::inout<std::int64_t> slot, std::int64_t by) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    slot[e] = slot[e] * 3 + by;
}

// Two loads in flight ahead of the compute: iteration k consumes slot k % 3 and prefetches
// tile k + 2 into slot (k + 2) % 3, the slot iteration k - 1 just finished with.
S2P_KERNEL void prefetch(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out) {
  s2p::pool<std::int64_t, 3 * kSlot> smem;
  auto ring = smem.tensor<3, kSlot>(0);
  S2P_WARP(0) load(in[0], ring[0]);
  S2P_WARP(0) load(in[1], ring[1]);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(1) scale(ring[k % 3], out[k], k + 1);
    if (k + 2 < K)
      S2P_WARP(0) load(in[k + 2], ring[(k + 2) % 3]);
  }
}

S2P_KERNEL void branches(s2p::tensor_ref<std::int64_t> io, int n) {
  s2p::pool<std::int64_t, 2 * kSlot> smem;
  auto slots = smem.tensor<2, kSlot>(0);
  for (int i = 0; i < 6; ++i) {
    S2P_WARP(0) load(io[i], slots[i % 2]);
    for (int j = 0; j < 3; ++j) {
      if (j != 0 && i / j > 1) {
        S2P_WARP(1) bump(slots[i % 2], j);
      } else if (!(i * i < 10) || (i % 3)) {
        S2P_WARP(2) bump(slots[i % 2], 100 + j);
      }
    }
    if (i < 2 || (i > 100 && n > 5)) // the loop index decides: n is never read
      S2P_WARP(1) bump(slots[i % 2], -1);
    if (static_cast<unsigned>(i) - 3u < 2u) // i == 3 or i == 4: unsigned wrap-around
      S2P_WARP(2) bump(slots[i % 2], 7);
    S2P_WARP(1) scale(slots[i % 2], io[6 + i], 2);
  }
}

// A condition on an inner loop's index inside a loop with a run-time trip count: every
// iteration of the outer loop makes the same calls.
S2P_KERNEL void inner_condition(s2p::tensor_ref<std::int64_t> in,
                                s2p::tensor_ref<std::int64_t> out, int m) {
  s2p::pool<std::int64_t, 3 * kSlot> smem;
  auto ring = smem.tensor<3, kSlot>(0);
  for (int t = 0; t < m; ++t) {
    S2P_WARP(0) load(in[t], ring[t % 3]);
    for (int r = 0; r < 3; ++r)
      if (r != 1)
        S2P_WARP(1) bump(ring[t % 3], r);
    S2P_WARP(2) scale(ring[t % 3], out[t], 3);
  }
}

int main() {
  std::int64_t in[K * kSlot], out[K * kSlot] = {};
  for (int e = 0; e < K * kSlot; ++e)
    in[e] = e * 5 - 17;
  prefetch({in, K, kSlot}, {out, K, kSlot});
  sample::print_array("prefetch", out, K * kSlot);

  std::int64_t io[12 * kSlot] = {};
  for (int e = 0; e < 6 * kSlot; ++e)
    io[e] = e - 9;
  branches({io, 12, kSlot}, 7);
  sample::print_array("branches", io, 12 * kSlot);

  constexpr int m = 7;
  std::int64_t inner_in[m * kSlot], inner_out[m * kSlot] = {};
  for (int e = 0; e < m * kSlot; ++e)
    inner_in[e] = 3 * e + 1;
  inner_condition({inner_in, m, kSlot}, {inner_out, m, kSlot}, m);
  sample::print_array("inner", inner_out, m * kSlot);
  return 0;
}
