#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<double> b);
S2P_KERNEL void k() {
  s2p::pool<double, 40000> first;
  s2p::pool<double, 50000> second;
  auto t = first.tensor<1, 10>(0);
  auto u = second.tensor<1, 10>(0);
#pragma s2p warp(0)
  fill(t[0]);
#pragma s2p warp(1)
  fill(u[0]);
}
// EXPECT: 5:28: error: the pools of kernel 'k' need 720000 bytes (first: 320000, second: 400000) but a tile has 638976 bytes of SRAM (--tile-sram)
