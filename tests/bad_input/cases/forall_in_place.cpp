// An in-place transpose: the forall reads the field it writes through a second agile view.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C) {
  auto map = s2p::resource_map<2>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Td = s2p::agile(C, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Td[{i[1], i[0]}]; });
}
// EXPECT: 7:59: error: the forall reads 'Td' and writes 'Cd', which both distribute field 'C'
