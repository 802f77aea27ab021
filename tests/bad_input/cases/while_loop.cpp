#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n) {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  int i = 0;
  while (i < n) {
#pragma s2p warp(0)
    fill(t[0]);
  }
}
// EXPECT: 7:3: error: 'while' loops are not supported in a kernel; use a 'for' loop with affine bounds
