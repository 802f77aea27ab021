#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (int j = i % 2; j == 0)
      S2P_WARP(0) fill(t[j]);
}
// EXPECT: 7:9: error: an 'if' in a kernel must not declare variables or have an initializer; declare the index before the 'if'
