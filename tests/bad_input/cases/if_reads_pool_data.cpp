#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  S2P_WARP(0) fill(t[0]);
  for (int i = 0; i < 4; ++i) {
    if (i > 0 && t[0][0] > 0.5f)
      S2P_WARP(1) fill(t[1]);
  }
}
// EXPECT: 8:18: error: the condition of this 'if' reads 't', which is not a loop index, constant or kernel parameter
