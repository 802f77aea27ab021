// A global the intrinsics update, reached from two warps: they would race on it.
#include <seq2par/seq2par.h>
long total = 0;
S2P_INTRINSIC void add(s2p::in<long> t) {
  for (long v : t)
    total += v;
}
S2P_INTRINSIC void scale(s2p::inout<long> t) {
  for (long& v : t)
    v *= total;
}
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  S2P_WARP(0) add(t[0]);
  S2P_WARP(1) scale(t[1]);
}
// EXPECT: 14:15: error: intrinsic 'scale' on warp 1 uses global variable 'total', which 'add' on warp 0 also reaches
// EXPECT: 10:10: note: here
