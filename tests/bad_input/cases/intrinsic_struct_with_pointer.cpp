#include <seq2par/seq2par.h>
struct Accumulator {
  long* total;
  int scale;
};
S2P_INTRINSIC void add(s2p::in<long> t, Accumulator acc);
S2P_KERNEL void k(s2p::tensor_ref<long> t, long* total) {
  const Accumulator acc{total, 2};
  S2P_WARP(0) add(t[0], acc);
}
// EXPECT: 9:25: error: parameter 2 ('acc') of intrinsic 'add' is a class through which the call could reach other memory: its member 'total' is a pointer or reference
// EXPECT: 7:50: error: parameter 'total' of a warp-split kernel is a pointer: warps run out of the sequential order, so
