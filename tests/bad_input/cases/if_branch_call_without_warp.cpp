#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i % 2 == 0)
      S2P_WARP(0) fill(t[0]);
    else
      fill(t[1]);
}
// EXPECT: 10:7: error: intrinsic call 'fill' has no warp number
