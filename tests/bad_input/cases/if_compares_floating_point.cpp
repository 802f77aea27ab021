#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i < 2.5)
      S2P_WARP(0) fill(t[i % 2]);
}
// EXPECT: 7:9: error: the condition of this 'if' compares a value of type 'double'; conditions compare integer index expressions
