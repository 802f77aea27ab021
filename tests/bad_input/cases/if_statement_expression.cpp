#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b, int v);
S2P_KERNEL void k(const float* flags) {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  S2P_WARP(0) fill(t[0], ({ int v = 0; if (flags[0] > 0) v = 1; v; }));
}
// EXPECT: 6:26: error: statement expressions '({ ... })' are not supported in a kernel
// EXPECT: 3:32: error: parameter 'flags' of a warp-split kernel is a pointer
