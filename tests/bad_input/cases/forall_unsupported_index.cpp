#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[{i[0] * 2, i[1]}]; });
}
// EXPECT: 6:62: error: the index of agile field 'Ad' must be the forall's index, or one built from it with each coordinate i[k] plus a constant (like {i[1], i[0]})
