#include <seq2par/seq2par.h>
#include <span>
S2P_INTRINSIC void scale(std::span<float> values, float by);
S2P_KERNEL void k(std::span<float> values) {
  S2P_WARP(0) scale(values, 2.0f);
  S2P_WARP(1) scale(values, 3.0f);
}
// EXPECT: 5:21: error: parameter 1 ('values') of intrinsic 'scale' is a class through which the call could reach other memory
// EXPECT: 4:36: error: parameter 'values' of a warp-split kernel is a class that reaches other memory (its member
// EXPECT: 6:21: error: parameter 1 ('values') of intrinsic 'scale' is a class through which the call could reach other memory
