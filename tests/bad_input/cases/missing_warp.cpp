#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  fill(t[0]);
}
// EXPECT: 6:3: error: intrinsic call 'fill' has no warp number
// EXPECT: 6:3: note: add '#pragma s2p warp(N)' before this statement or an enclosing loop
