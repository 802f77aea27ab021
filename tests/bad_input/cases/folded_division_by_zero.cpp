#include <seq2par/seq2par.h>
S2P_INTRINSIC void gen(s2p::out<int> slot, unsigned b);
S2P_KERNEL void k(s2p::tensor_ref<int> out) {
  for (unsigned i = 0; i < 4; ++i)
    S2P_WARP(0) gen(out[i], 7u / (i - 3));
}
// EXPECT: 5:17: error: '7U / (i - 3U)' in gen(out[3U], (7U / 0U)) is division by zero here
