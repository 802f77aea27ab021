// samples/tile_gemm with three declared variants of its multiply-add (tests/tune): the tuning
// loop's `substitute` rule tries them in order. `multiply_add_fast` computes exactly what
// `multiply_add` computes (the same arithmetic in the same order) and declares a lower cost
// (S2P_COST: the simulator's model of a faster implementation), so it is kept;
// `multiply_add_transposed` is cheaper still but multiplies by B's transpose, so its round
// prints something else than the sequential program and is rolled back.
#include <seq2par/seq2par.h>

#include "../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kSize = 64;                // C, A and B are kSize x kSize
constexpr int kBlock = 16;               // algorithmic block edge
constexpr int kBlocks = kSize / kBlock;  // blocks along the inner dimension
constexpr int kBlockElements = kBlock * kBlock;
constexpr int kDepth = 2;                // slots per operand: the ring depth
} // namespace

// A block of a distributed matrix into a pool slot, row-major.
S2P_INTRINSIC void load_block(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst[static_cast<std::size_t>(i * kBlock + j)] = src(i, j);
}

S2P_INTRINSIC void zero_block(s2p::out<float> c) {
  for (std::size_t k = 0; k < c.size(); ++k)
    c[k] = 0.0f;
}

// c += a * b on row-major blocks: kBlock^3 multiply-adds, modelled at 4 per cycle.
S2P_INTRINSIC S2P_COST(a.size() * kBlock / 4) void multiply_add(s2p::in<float> a,
                                                                 s2p::in<float> b,
                                                                 s2p::inout<float> c) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j) {
      float sum = c[static_cast<std::size_t>(i * kBlock + j)];
      for (int k = 0; k < kBlock; ++k)
        sum += a[static_cast<std::size_t>(i * kBlock + k)] * b[static_cast<std::size_t>(k * kBlock + j)];
      c[static_cast<std::size_t>(i * kBlock + j)] = sum;
    }
}

// The same multiply-add, modelled at 16 per cycle.
S2P_INTRINSIC S2P_COST(a.size() * kBlock / 16) void multiply_add_fast(s2p::in<float> a,
                                                                       s2p::in<float> b,
                                                                       s2p::inout<float> c) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j) {
      float sum = c[static_cast<std::size_t>(i * kBlock + j)];
      for (int k = 0; k < kBlock; ++k)
        sum += a[static_cast<std::size_t>(i * kBlock + k)] * b[static_cast<std::size_t>(k * kBlock + j)];
      c[static_cast<std::size_t>(i * kBlock + j)] = sum;
    }
}

// Not a variant in truth: c += a * b^T.
S2P_INTRINSIC S2P_COST(a.size() * kBlock / 32) void multiply_add_transposed(s2p::in<float> a,
                                                                             s2p::in<float> b,
                                                                             s2p::inout<float> c) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j) {
      float sum = c[static_cast<std::size_t>(i * kBlock + j)];
      for (int k = 0; k < kBlock; ++k)
        sum += a[static_cast<std::size_t>(i * kBlock + k)] * b[static_cast<std::size_t>(j * kBlock + k)];
      c[static_cast<std::size_t>(i * kBlock + j)] = sum;
    }
}

S2P_VARIANTS(multiply_add, multiply_add_fast, multiply_add_transposed);

// A pool slot back into the result block.
S2P_INTRINSIC void store_block(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst(i, j) = src[static_cast<std::size_t>(i * kBlock + j)];
}

S2P_KERNEL S2P_TILES(4) void tile_gemm(s2p::field<2, float>& C, const s2p::field<2, float>& A,
                                       const s2p::field<2, float>& B) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {32, 32}, 4)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  auto Bt = s2p::tiles(Bd);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, (2 * kDepth + 1) * kBlockElements> smem;
    auto a = smem.tensor<kDepth, kBlockElements>(0);
    auto w = smem.tensor<kDepth, kBlockElements>(kDepth * kBlockElements);
    auto acc = smem.tensor<1, kBlockElements>(2 * kDepth * kBlockElements);
    S2P_WARP(2) zero_block(acc[0]);
    for (int k = 0; k < kBlocks; ++k) {
      S2P_WARP(0) load_block(At({b[0], k}), a[k % kDepth]);
      S2P_WARP(1) load_block(Bt({k, b[1]}), w[k % kDepth]);
      S2P_WARP(2) multiply_add(a[k % kDepth], w[k % kDepth], acc[0]);
    }
    S2P_WARP(3) store_block(acc[0], Ct(b));
  });
}

int main() {
  std::vector<float> a(kSize * kSize), b(kSize * kSize), c(kSize * kSize, 0.0f);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<float>(static_cast<int>(k % 37) - 18) * 0.125f;
    b[k] = static_cast<float>(static_cast<int>((k * 11) % 29) - 14) * 0.0625f;
  }
  s2p::field<2, float> C(c.data(), {kSize, kSize});
  tile_gemm(C, s2p::field<2, float>(a.data(), {kSize, kSize}),
            s2p::field<2, float>(b.data(), {kSize, kSize}));
  sample::print_array("C", c.data(), c.size());
  return 0;
}
