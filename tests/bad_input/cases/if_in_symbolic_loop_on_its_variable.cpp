#include <seq2par/seq2par.h>
S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> b);
S2P_INTRINSIC void use(s2p::in<float> b, s2p::out<float> dst);
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int K) {
  s2p::pool<float, 30> smem;
  auto ring = smem.tensor<3, 10>(0);
  S2P_WARP(0) load(in[0], ring[0]);
  S2P_WARP(0) load(in[1], ring[1]);
  for (int k = 0; k < K; ++k) {
    S2P_WARP(1) use(ring[k % 3], out[k]);
    if (k + 2 < K)
      S2P_WARP(0) load(in[k + 2], ring[(k + 2) % 3]);
  }
}
// EXPECT: 11:5: error: the condition 'k + 2 < K' depends on 'k', the variable of a loop whose trip count is only known at run time; such a loop must make the same calls in every iteration: give the loop a constant trip count, or split off the iterations the condition singles out into a loop of their own
