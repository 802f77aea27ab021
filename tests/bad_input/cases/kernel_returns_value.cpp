#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL int k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
  return 3;
}
// EXPECT: 8:3: error: a kernel or the helper functions it calls must not return a value
