// Nested constant loops whose expansion does not fit beside a large pool: on a second try the
// outer loop is kept as a loop, but each of its iterations still expands the inner one (only
// one of two nested loops can stay a loop), whose code does not fit either. The error names
// the tile memory of the expanded kernel; a note says what keeping the outer loop gave.
// EXPECT: 20:26: error: the pools and code of kernel 'rounds' need
// EXPECT: 20:26: note: with its long constant loops kept as loops, the kernel is refused too: the pools and code of kernel 'rounds' need
#include <seq2par/seq2par.h>

S2P_INTRINSIC void load(s2p::in<int> src, s2p::out<int> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void store(s2p::in<int> src, s2p::out<int> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k] + 1;
}

S2P_KERNEL void rounds(s2p::tensor_ref<int> in, s2p::tensor_ref<int> out) {
  s2p::pool<int, 150000> smem;
  auto ring = smem.tensor<3, 8>(0);
  for (int t = 0; t < 50; ++t) {
    for (int k = 0; k < 300; ++k) {
      S2P_WARP(0) load(in[k], ring[k % 3]);
      S2P_WARP(1) store(ring[k % 3], out[k]);
    }
  }
}
