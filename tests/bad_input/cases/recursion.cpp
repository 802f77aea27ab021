#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
static void stage(s2p::pool<float, 10>& smem, int depth) {
  auto t = smem.tensor<1, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
  stage(smem, depth - 1);
}
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  stage(smem, 3);
}
// EXPECT: 7:3: error: recursive call to 'stage' cannot be inlined into a kernel
// EXPECT: 3:13: note: 'stage' is being inlined here
