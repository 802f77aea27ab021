// `i < 3u` compares i as unsigned: -1 becomes 4294967295 and the loop runs no iteration.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b, int v);
S2P_KERNEL void k(s2p::tensor_ref<float> out) {
  for (int i = -1; i < 3u; ++i)
    S2P_WARP(0) fill(out[0], i);
}
// EXPECT: 5:22: error: the loop condition compares 'i' (int) as 'unsigned int'
