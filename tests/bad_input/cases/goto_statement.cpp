#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
again:
#pragma s2p warp(0)
  fill(t[0]);
  goto again;
}
// EXPECT: 6:1: error: labels are not supported in a kernel
// EXPECT: 9:3: error: 'goto' is not supported in a kernel
