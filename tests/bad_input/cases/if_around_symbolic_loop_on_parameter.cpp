#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> b);
S2P_INTRINSIC void use(s2p::in<float> b, s2p::out<float> dst);
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int K, int n) {
  s2p::pool<float, 20> smem;
  auto ring = smem.tensor<2, 10>(0);
  for (int i = 0; i < 2; ++i)
    if (i < n)
      for (int k = 0; k < K; ++k) {
        S2P_WARP(0) load(in[k], ring[k % 2]);
        S2P_WARP(1) use(ring[k % 2], out[k]);
      }
}
// EXPECT: 9:7: error: loop 'k' has a run-time trip count and sits inside an 'if' that only the running program can decide ('i < n'); move the 'if' into the loop's body
