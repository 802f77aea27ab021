#include <seq2par/seq2par.h>
#include <vector>
S2P_INTRINSIC void append(std::vector<int>& log, s2p::in<int> value);
S2P_KERNEL void k(s2p::tensor_ref<int> values, std::vector<int>& log) {
  S2P_WARP(0) append(log, values[0]);
}
// EXPECT: 5:22: error: parameter 1 ('log') of intrinsic 'append' is a non-const reference
// EXPECT: 4:66: error: parameter 'log' of a warp-split kernel is a reference: warps run out of the sequential order, so
