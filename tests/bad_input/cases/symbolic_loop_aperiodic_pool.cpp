#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n) {
  s2p::pool<float, 40> smem;
  auto t = smem.tensor<4, 10>(0);
  for (int i = 0; i < n; ++i) {
#pragma s2p warp(0)
    fill(t[i]);
  }
}
// EXPECT: 8:10: error: pool coordinate 'i' of 't' must repeat with 'i' (like i % 3) because the loop's trip count is only known at run time
