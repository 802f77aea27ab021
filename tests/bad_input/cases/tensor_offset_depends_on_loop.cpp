#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
  for (int i = 0; i < 3; ++i) {
    auto t = smem.tensor<1, 10>(10 * i);
#pragma s2p warp(0)
    fill(t[0]);
  }
}
// EXPECT: 6:33: error: the offset of tensor 't' depends on loop variable 'i'; a tensor's place in the pool must be fixed for the whole kernel
