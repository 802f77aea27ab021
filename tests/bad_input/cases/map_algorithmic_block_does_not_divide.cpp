#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4).algorithmic_blocks({3, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i]; });
}
// EXPECT: 3:91: error: resource map 'map': axis 0: algorithmic block 3 does not divide segment block 8
