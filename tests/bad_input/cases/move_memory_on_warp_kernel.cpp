#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL S2P_MOVE_MEMORY(a, b) void k() {
  s2p::pool<float, 10> smem;
  auto t = smem.tensor<1, 10>(0);
  S2P_WARP(0) fill(t[0]);
}
// EXPECT: 3:39: error: S2P_MOVE_MEMORY applies to multi-tile kernels (S2P_TILES(n)), whose foralls move blocks between tiles
