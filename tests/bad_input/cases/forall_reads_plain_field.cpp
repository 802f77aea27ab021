// Reading the plain output field bypasses the distribution (another tile owns C(i - 1)).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = Ad[i] + C(63 - i[0]); });
}
// EXPECT: 7:67: error: 'C' is the plain field, which bypasses the distribution
