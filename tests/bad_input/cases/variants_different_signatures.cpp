// Two variants of one intrinsic with different signatures: a plan could not substitute one for
// the other in the kernel's calls.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void scale(s2p::in<float> a, s2p::out<float> r);
S2P_INTRINSIC void scale_wide(s2p::in<double> a, s2p::out<float> r);
S2P_VARIANTS(scale, scale_wide);
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  S2P_WARP(0) fill(t[0]);
}
// EXPECT: 6:21: error: variant 'scale_wide' has type 'void (s2p::in<double>, s2p::out<float>)' but 'scale' has 'void (s2p::in<float>, s2p::out<float>)': variants are interchangeable only with one signature
