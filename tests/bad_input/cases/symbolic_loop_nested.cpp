#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n, int m) {
  s2p::pool<float, 40> smem;
  auto t = smem.tensor<4, 10>(0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
#pragma s2p warp(0)
      fill(t[j % 4]);
    }
  }
}
// EXPECT: 7:5: error: loop 'j' also has a run-time trip count; only the outer of two nested loops can have one
