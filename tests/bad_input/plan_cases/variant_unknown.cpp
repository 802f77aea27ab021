// The plan chooses a variant the file does not declare for the intrinsic.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_INTRINSIC void fill_unrolled(s2p::out<float> b);
S2P_VARIANTS(fill, fill_unrolled);
S2P_INTRINSIC void drain(s2p::in<float> b);
S2P_KERNEL void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  S2P_WARP(0) fill(t[0]);
  S2P_WARP(1) drain(t[0]);
}
// EXPECT: 7:17: error: plan variant_unknown.plan.json: field 'variants[0].variant': 'fill_fast' is not a variant of 'fill' (the S2P_VARIANTS at line 5 declares fill, fill_unrolled)
