// Warp 0 runs ahead of warp 1: called as k(a, r, a[5]), `bias` lies in a block warp 0 fills,
// so warp 1 read the filled value where the sequential program reads the old one (both
// backends differed from the sequential build before seq2par refused this). A pointer or a
// class holding one reaches memory the same way.
#include <seq2par/seq2par.h>

#include <span>

S2P_INTRINSIC void fill(s2p::out<int> t, int v);
S2P_INTRINSIC void add(s2p::in<int> a, s2p::out<int> r, const int& bias);

S2P_KERNEL void k(s2p::tensor_ref<int> a, s2p::tensor_ref<int> r, const int& bias,
                  const int* scale, std::span<const int> window, int steps) {
  for (int s = 0; s < steps; ++s) {
    S2P_WARP(0) fill(a[s], s * 10);
    S2P_WARP(1) add(a[s], r[s], bias);
  }
}
// EXPECT: 12:78: error: parameter 'bias' of a warp-split kernel is a reference
// EXPECT: 13:30: error: parameter 'scale' of a warp-split kernel is a pointer
// EXPECT: 13:58: error: parameter 'window' of a warp-split kernel is a class that reaches other memory
