#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i) {
    int j = i;
    if (j++ < 3)
      S2P_WARP(0) fill(t[i % 2]);
  }
}
// EXPECT: 8:9: error: the condition of this 'if' has side effects; a kernel's 'if' conditions may only compare loop indices, constants and kernel parameters
// EXPECT: 8:9: error: increments and decrements are not supported in a kernel outside a 'for' loop's
