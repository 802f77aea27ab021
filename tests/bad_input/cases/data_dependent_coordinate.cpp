#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(const int* order) {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  for (int i = 0; i < 3; ++i) {
#pragma s2p warp(0)
    fill(t[order[i]]);
  }
}
// EXPECT: 8:12: error: unsupported expression in a coordinate: 'order[i]' (use + - * / % on loop variables, constants and kernel parameters)
// EXPECT: 3:30: error: parameter 'order' of a warp-split kernel is a pointer: warps run out of the sequential order, so
