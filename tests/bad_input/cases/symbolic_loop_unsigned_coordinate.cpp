// (i - 1) % 3 with unsigned i wraps at i = 0: not periodic as ordinary integers are.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_INTRINSIC void drain(s2p::in<float> b);
S2P_KERNEL void k(unsigned n) {
  s2p::pool<float, 30> smem;
  auto t = smem.tensor<3, 10>(0);
  for (unsigned i = 0; i < n; ++i) {
    S2P_WARP(0) fill(t[(i - 1) % 3]);
    S2P_WARP(1) drain(t[(i - 1) % 3]);
  }
}
// EXPECT: 9:22: error: coordinate '(i - 1U) % 3U' of 't' uses unsigned arithmetic or a narrowing conversion
