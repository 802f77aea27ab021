// A second view of a tensor_ref's memory with another shape: seq2par orders accesses per
// tensor_ref, so the two views would race.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_INTRINSIC void sum(s2p::in<float> b, s2p::out<float> r);
S2P_KERNEL void k(s2p::tensor_ref<float> buf, s2p::tensor_ref<float> result) {
  s2p::tensor_ref<float> halves(buf.data(), 2, buf.size() / 2);
  S2P_WARP(0) fill(buf[0]);
  S2P_WARP(1) sum(halves[0], result[0]);
}
// EXPECT: 7:26: error: tensor_ref 'halves' is built over memory the kernel already reaches
