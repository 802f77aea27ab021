#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 60> smem;
  auto t = smem.tensor<3, 20>(10);
#pragma s2p warp(0)
  fill(t[0]);
}
// EXPECT: 5:31: error: tensor 't' occupies pool elements [10,70), which overflows pool 'smem' of 60 elements
