// A shared table of structs: shared structures are multicast by the collectives, which move
// arithmetic elements.
#include <seq2par/seq2par.h>
struct Entry {
  float scale;
  float bias;
};
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& C, const s2p::field<1, int>& A,
                               S2P_SHARED const s2p::field<1, Entry>& table) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = table[{Ad[i]}].scale; });
}
// EXPECT: 9:71: error: S2P_SHARED 'table' holds elements of type 'struct Entry'; a shared structure is multicast to the tiles by the collectives, which move arithmetic e
