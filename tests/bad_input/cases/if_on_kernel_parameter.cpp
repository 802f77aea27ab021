#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n) {
  s2p::pool<float, 20> smem;
  auto t = smem.tensor<2, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i + n > 3)
      S2P_WARP(0) fill(t[i % 2]);
}
// EXPECT: 7:5: error: the condition 'i + n > 3' depends on the run-time value of 'n'; seq2par resolves conditions at transpile time, per iteration of the loops it expands, so a condition on a run-time value (a kernel parameter, or the variable of a loop with a run-time trip count) is not supported
