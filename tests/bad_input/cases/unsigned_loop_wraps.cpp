// `c` wraps from 255 to 0 and the loop never ends: no exact count of iterations exists.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b, int v);
S2P_KERNEL void k(s2p::tensor_ref<float> out) {
  for (unsigned char c = 250; c < 256; ++c)
    S2P_WARP(0) fill(out[0], c);
}
// EXPECT: 5:3: error: loop 'c' steps past the range of its type 'unsigned char'
// EXPECT: 5:33: warning: result of comparison of constant 256 with expression of type 'unsigned char' is always
