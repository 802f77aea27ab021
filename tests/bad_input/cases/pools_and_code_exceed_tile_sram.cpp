// A warp-split kernel whose pool fits the tile's SRAM alone (638800 of the built-in chip's
// 638976 bytes) but not beside its warp's code (seq2par's estimate: a base per warp image plus
// a cost per operation). The error is at the pool and counts both.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 159700> smem;
  auto t = smem.tensor<1, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
}
// EXPECT: 7:28: error: the pools and code of kernel 'k' need 639344 bytes (the code of 1 warp image, estimated: 544, smem: 638800) but a tile has 638976 bytes of SRAM (--tile-sram)
