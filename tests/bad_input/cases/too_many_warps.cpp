// Seven warps on a tile with six hardware threads: the launch would be refused.
#include <seq2par/seq2par.h>
S2P_INTRINSIC void fill(s2p::out<float> b);
S2P_KERNEL void k(s2p::tensor_ref<float> t) {
  S2P_WARP(0) fill(t[0]);
  S2P_WARP(1) fill(t[1]);
  S2P_WARP(2) fill(t[2]);
  S2P_WARP(3) fill(t[3]);
  S2P_WARP(4) fill(t[4]);
  S2P_WARP(5) fill(t[5]);
  S2P_WARP(6) fill(t[6]);
}
// EXPECT: 4:17: error: kernel 'k' runs on 7 warps but a tile has 6 hardware threads (the simulator's default; a fabric file with more threads per tile: --fabric): put ca
