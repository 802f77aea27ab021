// S2P_SHARED on a parameter of a warp kernel (one tile): there are no tiles to share with.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void copy(s2p::in<float> src, s2p::out<float> dst);
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out,
                  S2P_SHARED const s2p::field<1, float>& table) {
  s2p::pool<float, 64> smem;
  auto a = smem.tensor<1, 64>(0);
  S2P_WARP(0) copy(in[0], a[0]);
  S2P_WARP(1) copy(a[0], out[0]);
}
// EXPECT: 5:58: error: S2P_SHARED applies to parameters of multi-tile kernels
