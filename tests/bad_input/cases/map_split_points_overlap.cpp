#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::split_points(C.extent(), {{{16, 12}, {16}}}, 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i]; });
}
// EXPECT: 3:61: error: resource map 'map': axis 0: split points must be positive and strictly increasing (segments would overlap or be empty); got 12 after 16
