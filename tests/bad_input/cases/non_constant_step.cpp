#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int stride) {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  for (int i = 0; i < 3; i += stride) {
#pragma s2p warp(0)
    fill(t[0]);
  }
}
// EXPECT: 6:26: error: the loop increment must be ++i, --i, i += c or i -= c with a nonzero constant c
