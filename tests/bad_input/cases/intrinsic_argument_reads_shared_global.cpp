// Warp 1's intrinsic updates `scale`; warp 0's call reads it as an argument: unordered.
#include <seq2par/seq2par.h>
long scale = 1;
S2P_INTRINSIC void fill(s2p::out<long> t, long by);
S2P_INTRINSIC void grow(s2p::in<long> t) {
  scale += t[0];
}
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  S2P_WARP(1) grow(t[1]);
  S2P_WARP(0) fill(t[0], scale);
}
// EXPECT: 10:15: error: intrinsic 'fill' on warp 0 uses global variable 'scale', which 'grow' on warp 1 also reaches
