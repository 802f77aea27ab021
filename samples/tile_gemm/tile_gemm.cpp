// Both levels at once: C = A * B spread over tiles, and on every tile a load / multiply /
// store pipeline over the tile's hardware threads.
//
// The three 64 x 64 matrices share one block-block map: 32 x 32 segments dealt to 4 tiles
// (tile t owns one quarter of C, A and B), cut into 16 x 16 algorithmic blocks. The forall
// runs one task per 16 x 16 block of C on the tile that owns it. Task (i, j) reads block row
// i of A and block column j of B (At({b[0], k}) and Bt({k, b[1]}) for every k of the loop):
// owner-copy moves the blocks it does not own to its tile before the tasks start.
//
// Inside a task the work is a warp-split pipeline over a pool of 5 KiB: warp 0 loads A's
// blocks and warp 1 B's blocks into double-buffered slots (k % 2), warp 2 multiplies and
// accumulates, warp 3 stores the result block. seq2par finds where the warps wait on each
// other (a slot filled, a slot free again, the sum complete); on the simulator each tile's
// compute phase then lasts as long as its tasks' pipelines.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kSize = 64;                // C, A and B are kSize x kSize
constexpr int kBlock = 16;               // algorithmic block edge
constexpr int kBlocks = kSize / kBlock;  // blocks along the inner dimension
constexpr int kBlockElements = kBlock * kBlock;
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
    s2p::pool<float, 5 * kBlockElements> smem;
    auto a = smem.tensor<2, kBlockElements>(0);
    auto w = smem.tensor<2, kBlockElements>(2 * kBlockElements);
    auto acc = smem.tensor<1, kBlockElements>(4 * kBlockElements);
    S2P_WARP(2) zero_block(acc[0]);
    for (int k = 0; k < kBlocks; ++k) {
      S2P_WARP(0) load_block(At({b[0], k}), a[k % 2]);
      S2P_WARP(1) load_block(Bt({k, b[1]}), w[k % 2]);
      S2P_WARP(2) multiply_add(a[k % 2], w[k % 2], acc[0]);
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
