// Two warps updating one accumulator through `long&`: a race seq2par cannot see
// (sequential 454723, threads a different value on every run).
#include <seq2par/seq2par.h>
S2P_INTRINSIC void mix(s2p::in<long> t, long& acc);
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  long acc = 0;
  S2P_WARP(0) mix(t[0], acc);
  S2P_WARP(1) mix(t[1], acc);
}
// EXPECT: 7:25: error: parameter 2 ('acc') of intrinsic 'mix' is a non-const reference
// EXPECT: 8:25: error: parameter 2 ('acc') of intrinsic 'mix' is a non-const reference, through which the call could
