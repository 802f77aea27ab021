// A default argument with side effects: the error is at the call, with a note at the default.
#include <seq2par/seq2par.h>
int next_seed();
S2P_INTRINSIC void load(s2p::in<float> a, s2p::out<float> r, int seed = next_seed());
S2P_KERNEL void k(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out) {
  S2P_WARP(0) load(in[0], out[0]);
}
// EXPECT: 6:15: error: argument 3 of 'load' (its default argument) has side effects
// EXPECT: 4:73: note: the default argument
