// S2P_SHARED on a field the kernel may write (not const): a shared structure must be
// read-only for the whole kernel.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& C, const s2p::field<1, int>& A,
                               S2P_SHARED s2p::field<1, float>& table) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = table[{Ad[i]}]; });
}
// EXPECT: 5:65: error: S2P_SHARED applies to a read-only s2p::field parameter
