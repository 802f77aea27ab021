// A long constant loop whose expansion does not fit a tile, and that cannot be kept as a loop
// either: its ring slot (i * i) % 3 does not repeat with i. The error names the tile memory;
// a note says why the loop stayed expanded.
// EXPECT: 19:25: error: the pools and code of kernel 'squares' need 1025056 bytes (the code of 2 warp images
// EXPECT: 22:29: note: loop 'i' (6000 iterations) cannot be kept as a loop, which needs what a loop with a run-time trip count needs: pool coordinate 'i * i % 3' of 'ring' must repeat with 'i'
#include <seq2par/seq2par.h>

S2P_INTRINSIC void load(s2p::in<int> src, s2p::out<int> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void store(s2p::in<int> src, s2p::out<int> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_KERNEL void squares(s2p::tensor_ref<int> in, s2p::tensor_ref<int> out) {
  s2p::pool<int, 3 * 8> smem;
  auto ring = smem.tensor<3, 8>(0);
  for (int i = 0; i < 6000; ++i) {
    S2P_WARP(0) load(in[i], ring[(i * i) % 3]);
    S2P_WARP(1) store(ring[(i * i) % 3], out[i]);
  }
}
