// Two intrinsics updating one buffer through raw pointers: 0 channels between them.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void bump(unsigned* p);
S2P_INTRINSIC void square(unsigned* p);
S2P_KERNEL void k(unsigned* data) {
  S2P_WARP(0) bump(data);
  S2P_WARP(1) square(data);
}
// EXPECT: 6:20: error: parameter 1 ('p') of intrinsic 'bump' is a pointer
// EXPECT: 7:22: error: parameter 1 ('p') of intrinsic 'square' is a pointer
// EXPECT: 5:29: error: parameter 'data' of a warp-split kernel is a pointer: warps run out of the sequential order, so
