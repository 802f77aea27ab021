// `if`s only the running program can decide, written the ways a hand-pipelined kernel does:
// a prefetch guard `if (k + 2 < K)` in a loop whose trip count K is a kernel parameter,
// first- and last-iteration work (`k == 0`, `k == K - 1`, `k > 0` reading out[k - 1]), a
// condition that repeats with the loop (`k % 2`), one that mixes an unrolled inner loop's
// variable with K, and conditions that mix a kernel parameter with the variable of a loop
// of constant trip count, in a single-tile kernel and in a warp task of a multi-tile kernel.
// seq2par predicates such calls: the call runs when its condition holds, its
// synchronization runs either way. Each kernel is called with trip counts that take every
// branch, including none and one iteration.
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

S2P_INTRINSIC void fold(s2p::in<std::int64_t> from, s2p::inout<std::int64_t> into) {
  sample::jitter();
  for (std::size_t e = 0; e < into.size(); ++e)
    into[e] = into[e] * 5 + from[e];
}

S2P_INTRINSIC void store(s2p::in<std::int64_t> slot, s2p::out<std::int64_t> dst) {
  sample::jitter();
  for (std::size_t e = 0; e < slot.size(); ++e)
    dst[e] = slot[e];
}

// A triple-buffered ring: two loads before the loop, then each iteration prefetches the
// slot two ahead while the other warps work on this one.
S2P_KERNEL void prefetch(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out, int K) {
  s2p::pool<std::int64_t, 3 * kSlot> smem;
  auto ring = smem.tensor<3, kSlot>(0);
  S2P_WARP(0) load(in[0], ring[0]);
  S2P_WARP(0) load(in[1], ring[1]);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(1) bump(ring[k % 3], k);
    S2P_WARP(2) store(ring[k % 3], out[k]);
    if (k + 2 < K)
      S2P_WARP(0) load(in[k + 2], ring[(k + 2) % 3]);
  }
}

// First and last iterations, an else, a call that reads the previous iteration's output
// (its index is negative in the iteration that skips it), and nested conditions.
S2P_KERNEL void ends(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out, int K) {
  s2p::pool<std::int64_t, 3 * kSlot> smem;
  auto slots = smem.tensor<2, kSlot>(0);
  auto total = smem.tensor<1, kSlot>(2 * kSlot);
  S2P_WARP(2) load(in[40], total[0]);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(0) load(in[k], slots[k % 2]);
    if (k == 0)
      S2P_WARP(1) bump(slots[k % 2], 100);
    else
      S2P_WARP(1) fold(total[0], slots[k % 2]);
    if (k > 0)
      S2P_WARP(0) fold(out[k - 1], slots[k % 2]);
    if (k == K - 1) {
      S2P_WARP(2) fold(slots[k % 2], total[0]);
      if (k % 2 == 1)
        S2P_WARP(2) bump(total[0], 7);
    }
    S2P_WARP(1) store(slots[k % 2], out[k]);
  }
  S2P_WARP(2) store(total[0], out[50]);
}

// A condition that repeats with the loop (decided per residue of the emitted loop), and one
// that mixes the variable of an unrolled inner loop with the trip count.
S2P_KERNEL void strided(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out, int K) {
  s2p::pool<std::int64_t, 4 * kSlot> smem;
  auto pairs = smem.tensor<2, 2, kSlot>(0);
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < 2; ++j) {
      S2P_WARP(0) load(in[2 * k + j], pairs(k % 2, j));
      if (j + k + 1 < K)
        S2P_WARP(1) bump(pairs(k % 2, j), j + 1);
    }
    if (k % 2 == 0)
      S2P_WARP(1) fold(pairs(k % 2, 1), pairs(k % 2, 0));
    else
      S2P_WARP(2) bump(pairs(k % 2, 0), -3);
    S2P_WARP(2) store(pairs(k % 2, 0), out[k]);
  }
}

// A kernel parameter mixed with the variable of a loop that seq2par unrolls.
S2P_KERNEL void shifted(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out, int n) {
  s2p::pool<std::int64_t, 2 * kSlot> smem;
  auto t = smem.tensor<2, kSlot>(0);
  for (int i = 0; i < 4; ++i) {
    S2P_WARP(0) load(in[i], t[i % 2]);
    if (i + n > 3)
      S2P_WARP(1) bump(t[i % 2], i);
    if (i < n && n < 3)
      S2P_WARP(1) fold(in[10 + i], t[i % 2]);
    S2P_WARP(2) store(t[i % 2], out[i]);
  }
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

// A warp task that folds a row of blocks into its own; how many of them is a parameter.
S2P_KERNEL S2P_TILES(4) void row_prefix(s2p::field<2, std::int64_t>& Y,
                                        const s2p::field<2, std::int64_t>& X, int upto) {
  auto map = s2p::resource_map<2>::block_block(Y.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    s2p::pool<std::int64_t, 48> smem;
    auto t = smem.tensor<2, 16>(0);
    auto acc = smem.tensor<1, 16>(32);
    S2P_WARP(2) load_block(Xt(b), acc[0]);
    for (int k = 0; k < 4; ++k) {
      S2P_WARP(0) load_block(Xt({b[0], k}), t[k % 2]);
      if (k < upto)
        S2P_WARP(1) fold(t[k % 2], acc[0]);
    }
    S2P_WARP(2) store_block(acc[0], Yt(b));
  });
}

int main() {
  std::vector<std::int64_t> in(64 * kSlot);
  for (std::size_t e = 0; e < in.size(); ++e)
    in[e] = static_cast<std::int64_t>(e * 7 % 23) - 11;
  for (const int K : {0, 1, 2, 3, 7}) {
    std::vector<std::int64_t> out(64 * kSlot, -1);
    prefetch({in.data(), 64, kSlot}, {out.data(), 64, kSlot}, K);
    sample::print_array("prefetch", out.data(), out.size());
  }
  for (const int K : {0, 1, 2, 5, 6}) {
    std::vector<std::int64_t> out(64 * kSlot, -1);
    ends({in.data(), 64, kSlot}, {out.data(), 64, kSlot}, K);
    sample::print_array("ends", out.data(), out.size());
  }
  for (const int K : {0, 1, 4, 9}) {
    std::vector<std::int64_t> out(32 * kSlot, -1);
    strided({in.data(), 64, kSlot}, {out.data(), 32, kSlot}, K);
    sample::print_array("strided", out.data(), out.size());
  }
  for (const int n : {0, 1, 2, 5}) {
    std::vector<std::int64_t> out(8 * kSlot, -1);
    shifted({in.data(), 64, kSlot}, {out.data(), 8, kSlot}, n);
    sample::print_array("shifted", out.data(), out.size());
  }
  std::vector<std::int64_t> x(16 * 16);
  for (std::size_t e = 0; e < x.size(); ++e)
    x[e] = static_cast<std::int64_t>(e * 5 % 17) - 8;
  for (const int upto : {0, 2, 4}) {
    std::vector<std::int64_t> y(16 * 16, -1);
    s2p::field<2, std::int64_t> Y(y.data(), {16, 16});
    row_prefix(Y, s2p::field<2, std::int64_t>(x.data(), {16, 16}), upto);
    sample::print_array("row_prefix", y.data(), y.size());
  }
  return 0;
}
