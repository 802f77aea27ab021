#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) S2P_MOVE_MEMORY(C, A) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A,
                                                   const s2p::field<2, double>& B) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4);
  auto Cd = s2p::agile(C, map);
  auto Bd = s2p::agile(B, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Bd[{i[1], i[0]}]; });
}
// EXPECT: 2:25: error: S2P_MOVE_MEMORY(C, A): no forall in this kernel writes 'C' and reads 'A'
