#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      if (i / j > 1) // j == 0 first: undefined behaviour sequentially
        S2P_WARP(0) fill(t[j]);
}
// EXPECT: 8:7: error: the condition 'i / j > 1' is division by zero here: undefined behaviour in the sequential program
