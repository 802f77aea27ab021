#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
#pragma s2p warp(0)
#pragma s2p warp(1)
  fill(t[0]);
}
// EXPECT: 7:1: error: conflicting '#pragma s2p warp' for one statement (warp 0 and warp 1)
