#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  for (int i = 0; i <= 3; ++i) {
#pragma s2p warp(0)
    fill(t[i]);
  }
}
// EXPECT: 8:10: error: coordinate 3 is out of range [0,3) for tensor 't' in fill(t[3])
