// Tasks of foralls over tile blocks, written the ways a user would: a plain task body that
// walks a block row with a loop variable (every block of the loop's range is moved to the
// task's tile), and a task split into warps that reads and
// writes its output block in place (s2p::inout<field>) and folds constants of this file
// into its loop bounds, and one that moves sections of blocks (`Yt(b).section(g)`, the grid
// moving with a loop variable) through a pool. Results must equal the sequential build on
// every backend.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kEdge = 24;         // fields are kEdge x kEdge
constexpr int kBlock = 6;         // algorithmic blocks of kBlock x kBlock
constexpr int kRow = kEdge / kBlock; // blocks per row
} // namespace

// Row sums of a block row of A, plain C++ inside the task: R(b) += A(b[0], k) for every k.
S2P_KERNEL S2P_TILES(3) void block_row_sums(s2p::field<2, double>& R, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(R.extent(), {kBlock, kBlock}, 3)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Rd = s2p::agile(R, map);
  auto Ad = s2p::agile(A, map);
  auto Rt = s2p::tiles(Rd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Rt.blocks(), [&](s2p::index<2> b) {
    const auto r = Rt(b);
    for (int k = 0; k < kRow; ++k) {
      const auto a = At({b[0], k});
      s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] += a[j] * static_cast<double>(k + 1); });
    }
  });
}

S2P_INTRINSIC void load(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst[static_cast<std::size_t>(i * kBlock + j)] = src(i, j);
}
S2P_INTRINSIC void scale_add(s2p::in<float> x, s2p::inout<s2p::field<2, float>> y, float s) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      y(i, j) = y(i, j) * 0.5f + x[static_cast<std::size_t>(i * kBlock + j)] * s;
}

// Y(b) = (...((Y(b) * 0.5 + X(b[0], 0) * 1) * 0.5 + X(b[0], 1) * 2)...): a load / update
// pipeline over a ring of 3 slots in each task.
S2P_KERNEL S2P_TILES(4) void pipelined_update(s2p::field<2, float>& Y, const s2p::field<2, float>& X) {
  auto ymap = s2p::resource_map<2>::block_block(Y.extent(), {kBlock, kEdge}, 4)
                  .algorithmic_blocks({kBlock, kBlock});
  auto Yd = s2p::agile(Y, ymap);
  auto Xd = s2p::agile(X, ymap);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 3 * kBlock * kBlock> smem;
    auto slots = smem.tensor<3, kBlock * kBlock>(0);
    auto y = Yt(b);
    for (int k = 0; k < kRow; ++k) {
      S2P_WARP(0) load(Xt({b[0], k}), slots[k % 3]);
      S2P_WARP(1) scale_add(slots[k % 3], y, static_cast<float>(k) + 1.0f);
    }
  });
}

S2P_INTRINSIC void load_rows(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst) {
  for (int i = 0; i < src.extent()[0]; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst[static_cast<std::size_t>(i * kBlock + j)] = src(i, j) * 3.0f;
}
S2P_INTRINSIC void store_rows(s2p::in<float> src, s2p::out<s2p::field<2, float>> dst) {
  for (int i = 0; i < dst.extent()[0]; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst(i, j) = src[static_cast<std::size_t>(i * kBlock + j)] - static_cast<float>(i);
}

// Y(b) = 3 X(b) - row, two rows at a time: sections of the input and output blocks whose
// grids move with k, double-buffered in the pool.
S2P_KERNEL S2P_TILES(4) void row_pairs(s2p::field<2, float>& Y, const s2p::field<2, float>& X) {
  auto map = s2p::resource_map<2>::block_cyclic(Y.extent(), {kBlock, kBlock}, 4)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 4 * kBlock> smem;
    auto slots = smem.tensor<2, 2 * kBlock>(0);
    for (int k = 0; k < kBlock / 2; ++k) {
      S2P_WARP(0) load_rows(Xt(b).section({{2, kBlock}, {2 * k, 0}}), slots[k % 2]);
      S2P_WARP(1) store_rows(slots[k % 2], Yt(b).section({{2, kBlock}, {2 * k, 0}}));
    }
  });
}

int main() {
  std::vector<double> a(kEdge * kEdge), r(kEdge * kEdge, 1.0);
  std::vector<float> x(kEdge * kEdge), y(kEdge * kEdge);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>(static_cast<int>(k % 13) - 6) * 0.25;
    x[k] = static_cast<float>(static_cast<int>((k * 5) % 17) - 8) * 0.125f;
    y[k] = static_cast<float>(k % 7);
  }
  s2p::field<2, double> R(r.data(), {kEdge, kEdge});
  block_row_sums(R, s2p::field<2, double>(a.data(), {kEdge, kEdge}));
  sample::print_array("R", r.data(), r.size());
  s2p::field<2, float> Y(y.data(), {kEdge, kEdge});
  pipelined_update(Y, s2p::field<2, float>(x.data(), {kEdge, kEdge}));
  sample::print_array("Y", y.data(), y.size());
  std::vector<float> z(kEdge * kEdge, -1.0f);
  s2p::field<2, float> Z(z.data(), {kEdge, kEdge});
  row_pairs(Z, s2p::field<2, float>(x.data(), {kEdge, kEdge}));
  sample::print_array("Z", z.data(), z.size());
  return 0;
}
