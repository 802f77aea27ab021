#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  auto first = t[0];
#pragma s2p warp(0)
  fill(first);
}
// EXPECT: 6:8: error: sub-tensor views cannot be stored in kernel variables; pass the sub-tensor (like t[i]) to the intrinsic directly
