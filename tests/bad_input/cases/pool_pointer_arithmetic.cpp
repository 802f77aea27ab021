#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill_raw(float* p, int n);
S2P_KERNEL void k() {
  s2p::pool<float, 30> smem;
#pragma s2p warp(0)
  fill_raw(smem.data() + 3, 10);
}
// EXPECT: 6:12: error: tensors and pools can only be passed to parameter 1 of 'fill_raw' as s2p::in/out/inout sub-tensors (no pointer arithmetic on pools)
