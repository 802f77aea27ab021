#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
s2p::view<float> make_view();
S2P_KERNEL void k() {
#pragma s2p warp(0)
  fill(make_view());
}
// EXPECT: 6:8: error: argument 1 of intrinsic 'fill' must be a sub-tensor of a pool tensor or tensor_ref, like t[i], t(i, j) or t.all()
