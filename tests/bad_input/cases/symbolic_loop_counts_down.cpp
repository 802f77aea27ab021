#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n) {
  s2p::pool<float, 40> smem;
  auto t = smem.tensor<4, 10>(0);
  for (int i = n; i > 0; --i) {
#pragma s2p warp(0)
    fill(t[i % 4]);
  }
}
// EXPECT: 6:3: error: the start of loop 'i' cannot be evaluated at transpile time: depends on the run-time value of 'n'
