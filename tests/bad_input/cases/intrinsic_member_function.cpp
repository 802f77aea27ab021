#include <seq2par/seq2par.h>
struct Counter {
  long count = 0;
  S2P_INTRINSIC void add(s2p::in<long> t);
};
S2P_KERNEL void k(s2p::tensor_ref<long> t, Counter& counter) {
  S2P_WARP(0) counter.add(t[0]);
  S2P_WARP(1) counter.add(t[1]);
}
// EXPECT: 7:15: error: intrinsic 'Counter::add' is a member function
// EXPECT: 6:53: error: parameter 'counter' of a warp-split kernel is a reference: warps run out of the sequential
// EXPECT: 8:15: error: intrinsic 'Counter::add' is a member function
