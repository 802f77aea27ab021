// Tile memory is a fabric parameter for rings too: at the extents the file calls it with, each
// of the two tiles' rows is 781.3 KiB, more than the built-in chip's 624 KiB. The error is at the
// collective and says what would fit (before, the ring's tiles grew to hold the rows).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(2) void k(s2p::field<2, float>& rows) {
  s2p::all_reduce(rows, s2p::sum{});
}
void call(float* rows) {
  s2p::field<2, float> R(rows, {2, 200000});
  k(R);
}
// EXPECT: 6:3: error: kernel 'k': the all_reduce does not fit in tile memory: a ring allreduce of 781.3 KiB per tile on 2 tiles: tile 0: out of memory: 781.3 KiB live at superstep 0 (the peak), the tile has 624.0 KiB of SRAM; biggest: 'data' 781.3 KiB; not placed: 'data' 781.3 KiB; every buffer of the ring scales with the row: rows of fewer elements (the data spread over more tiles, or the collective split into parts) fit
