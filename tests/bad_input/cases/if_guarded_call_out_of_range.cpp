#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(int n) {
  s2p::pool<float, 40> smem;
  auto t = smem.tensor<4, 10>(0);
  for (int i = 0; i < 4; ++i)
    if (i + 1 < n)
      S2P_WARP(0) fill(t[i + 1]);
}
// EXPECT: 8:24: error: coordinate 4 is out of range [0,4) for tensor 't' in fill(t[4]); the call is under 'i + 1 < n', which only the running program decides, so seq2par plans its buffers as if it ran in every iteration
