#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(const float* flags) {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  if (flags[0] > 0) {
#pragma s2p warp(0)
    fill(t[0]);
  }
}
// EXPECT: 6:7: error: the condition of this 'if' reads 'flags', which is not a loop index, constant or kernel parameter; a kernel's 'if' conditions may only compare loop indices, constants and kernel parameters (control flow must not depend on data)
// EXPECT: 3:32: error: parameter 'flags' of a warp-split kernel is a pointer: warps run out of the sequential order, so
