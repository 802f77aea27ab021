#include <seq2par/seq2par.h>
inline long next_seed() {
  static long seed = 1;
  seed = seed * 6364136223846793005L + 1;
  return seed;
}
S2P_INTRINSIC void fill(s2p::out<long> t) {
  for (long& v : t)
    v = next_seed();
}
S2P_KERNEL void k(s2p::tensor_ref<long> t) {
  S2P_WARP(0) fill(t[0]);
  S2P_WARP(1) fill(t[1]);
}
// EXPECT: 13:15: error: intrinsic 'fill' on warp 1 declares static variable 'seed', which keeps state between calls, which 'fill' on warp 0 also reaches
