// An all_reduce over 3 rows in a 4-tile kernel (as this file calls it): every tile holds one
// row, so the program would refuse the collective when the kernel runs.
#include <seq2par/seq2par.h>
#include <vector>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, float>& rows) {
  s2p::all_reduce(rows, s2p::sum{});
}
int main() {
  std::vector<float> data(3 * 8, 1.0f);
  s2p::field<2, float> rows(data.data(), {3, 8});
  k(rows);
}
// EXPECT: 6:3: error: kernel 'k': the all_reduce fails when the kernel runs with the extents of the call at collective_rows_not_tiles.cpp:11: 'rows' is 3x8, not one row
