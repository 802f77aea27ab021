// Nested loops over a rank-2 grid of pool sub-tensors: warp 0 fills tile (r % 2, c) of
// a double-buffered 2 x 4 grid, warp 1 reduces each tile into row sums of `sums`.
// The inner bound depends on the outer variable, and coordinates use an index scalar
// computed in the loop body.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

constexpr int kRows = 6;
constexpr int kCols = 4;
constexpr int kTile = 16;

S2P_INTRINSIC void fill(s2p::out<int> tile, int row, int col) {
  sample::jitter();
  for (std::size_t k = 0; k < tile.size(); ++k)
    tile[k] = row * 1000 + col * 100 + static_cast<int>(k);
}

S2P_INTRINSIC void reduce_into(s2p::in<int> tile, s2p::inout<int> sum) {
  sample::jitter();
  for (int v : tile)
    sum[0] += v;
}

S2P_KERNEL void nested(s2p::tensor_ref<int> sums) {
  s2p::pool<int, 2 * kCols * kTile> smem;
  auto grid = smem.tensor<2, kCols, kTile>(0);
  for (int r = 0; r < kRows; ++r) {
    const int buffer = r % 2;
    for (int c = 0; c <= r % kCols; ++c) {
#pragma s2p warp(0)
      fill(grid(buffer, c), r, c);
#pragma s2p warp(1)
      reduce_into(grid(buffer, c), sums[r]);
    }
  }
}

int main() {
  int sums[kRows] = {};
  for (int run = 0; run < 5; ++run)
    nested({sums, kRows, 1});
  sample::print_array("sums", sums, kRows);
  return 0;
}
