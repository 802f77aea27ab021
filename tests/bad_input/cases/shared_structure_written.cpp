// The forall body writes an S2P_SHARED table: shared structures are read-only for the whole
// kernel (every tile reads its own copy, received from a master tile).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& C, const s2p::field<1, int>& A,
                               S2P_SHARED const s2p::field<1, float>& table) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) {
    table[{Ad[i]}] = 1.0f;
    Cd[i] = table[{Ad[i]}];
  });
}
// EXPECT: 10:20: error: the forall body writes 'table', which is S2P_SHARED
