// S2P_VARIANTS names a variable and a plain function: neither is an intrinsic a plan could call
// instead of the first.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void scale(s2p::in<float> a, s2p::out<float> r);
void scale_plain(s2p::in<float> a, s2p::out<float> r);
float scale_table = 2.0f;
S2P_VARIANTS(scale, scale_table, scale_plain);
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  S2P_WARP(0) fill(t[0]);
}
// EXPECT: 7:21: error: S2P_VARIANTS names interchangeable intrinsics, and this is not one (not a function): a plan substitutes a variant in the kernel's intrinsic calls
// EXPECT: 7:34: error: S2P_VARIANTS names interchangeable intrinsics, and this is not one (a function without S2P_INTRINSIC): a plan substitutes a variant in the kernel's intrinsic calls
