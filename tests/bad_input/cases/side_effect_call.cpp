#include <seq2par/seq2par.h>
#include <cstdio>
S2P_INTRINSIC void fill(s2p::out<float> b);
void log_progress(int step);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
  log_progress(1);
}
// EXPECT: 10:3: error: call to 'log_progress', which is neither an intrinsic (S2P_INTRINSIC) nor a helper whose body seq2par can see
