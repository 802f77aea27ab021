// An S2P_SHARED parameter no forall reads: the annotation would do nothing.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& C, const s2p::field<1, float>& A,
                               S2P_SHARED const s2p::field<1, float>& table) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = Ad[i]; });
}
// EXPECT: 4:71: error: S2P_SHARED parameter 'table' is read by no forall of the kernel
