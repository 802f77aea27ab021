// A variant a plan may substitute keeps a static scratch buffer: on two warps at once it would
// race, so it gets the check a direct call gets.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void scale(s2p::in<float> a, s2p::out<float> r) {
  for (std::size_t k = 0; k < r.size(); ++k)
    r[k] = a[k] * 2.0f;
}
S2P_INTRINSIC void scale_buffered(s2p::in<float> a, s2p::out<float> r) {
  static float scratch[64];
  for (std::size_t k = 0; k < r.size() && k < 64; ++k)
    scratch[k] = a[k] * 2.0f;
  for (std::size_t k = 0; k < r.size() && k < 64; ++k)
    r[k] = scratch[k];
}
S2P_VARIANTS(scale, scale_buffered);
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out) {
  S2P_WARP(0) scale(in[0], out[0]);
  S2P_WARP(1) scale(in[1], out[1]);
}
// EXPECT: 15:21: error: variant 'scale_buffered' declares static variable 'scratch', which keeps state between calls; a plan may substitute it for a call on any warp, wh
// EXPECT: 9:16: note: here
