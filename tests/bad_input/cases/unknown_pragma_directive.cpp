#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
#pragma s2p lane(0)
  fill(t[0]);
}
// EXPECT: 6:13: error: unknown '#pragma s2p' directive 'lane'; expected 'warp(N)'
