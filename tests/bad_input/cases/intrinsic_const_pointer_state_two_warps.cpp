// A const pointer to a global the intrinsics update, reached from two warps: const on the
// pointer does not make what it points to immutable.
#include <seq2par/seq2par.h>
long total = 0;
long* const sum = &total;
S2P_INTRINSIC void add(s2p::in<long> t) {
  for (long v : t)
    *sum += v;
}
S2P_INTRINSIC void scale(s2p::inout<long> t) {
  for (long& v : t)
    v *= *sum;
}
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  S2P_WARP(0) add(t[0]);
  S2P_WARP(1) scale(t[1]);
}
// EXPECT: 16:15: error: intrinsic 'scale' on warp 1 uses global variable 'sum' (const, but it reaches memory that can change through it: a pointer to non-const or a muta
// EXPECT: 12:11: note: here
// EXPECT: 15:15: note: the call on warp 0
