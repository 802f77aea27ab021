#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
int limit = 3; // mutable: the sequential run could change it between launches
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i < limit)
      S2P_WARP(0) fill(t[i % 2]);
}
// EXPECT: 8:13: error: the condition of this 'if' reads 'limit', which is not a loop index, constant or kernel parameter
