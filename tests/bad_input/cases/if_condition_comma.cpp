#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i > 5, i < 2)
      S2P_WARP(0) fill(t[i % 2]);
}
// EXPECT: 7:9: error: unsupported condition 'i > 5, i < 2': compare integer expressions with < <= > >= == != and combine the comparisons with && || !
// EXPECT: 7:11: warning: relational comparison result
