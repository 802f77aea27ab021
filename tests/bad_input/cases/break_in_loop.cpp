#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  for (int i = 0; i < 3; ++i) {
#pragma s2p warp(0)
    fill(t[i]);
    break;
  }
}
// EXPECT: 9:5: error: 'break' is not supported in a kernel: loops must run their full trip count
