#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> b);
S2P_INTRINSIC void use(s2p::in<float> b, s2p::out<float> dst);
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int K) {
  s2p::pool<float, 30> smem;
  auto ring = smem.tensor<3, 10>(0);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(0) load(in[k], ring[k % 3]);
    if (K > 4)
      S2P_WARP(1) use(ring[k % 3], out[k]);
  }
}
// EXPECT: 9:5: error: the condition 'K > 4' depends on the run-time value of 'K'
