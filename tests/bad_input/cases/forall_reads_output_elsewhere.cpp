#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C) {
  auto map = s2p::resource_map<2>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Cd[{i[1], i[0]}]; });
}
// EXPECT: 5:59: error: the forall reads 'Cd', the field it writes, where another iteration writes it: iteration (0, 1) reads C(1, 0), which iteration (1, 0) writes
