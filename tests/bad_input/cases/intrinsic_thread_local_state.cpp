// thread_local state on one warp: each launch may run the warp on another host thread, so the
// count does not carry over as in the sequential program.
#include <seq2par/seq2par.h>
thread_local long launches = 0;
S2P_INTRINSIC void stamp(s2p::inout<long> t) {
  ++launches;
  for (long& v : t)
    v += launches;
}
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  S2P_WARP(0) stamp(t[0]);
}
// EXPECT: 11:15: error: intrinsic 'stamp' uses thread_local variable 'launches'; a warp runs on whichever host thread the backend gives it, which changes between launche
// EXPECT: 6:5: note: here
