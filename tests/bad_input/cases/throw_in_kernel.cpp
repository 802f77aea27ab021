#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
  throw 1;
}
// EXPECT: 8:3: error: exceptions ('throw') are not supported in a kernel
