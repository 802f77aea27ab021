// The sequential run is tile 0 throughout: a body that reads the tile index computes
// something else in parallel (sequential 630, parallel 633).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = Ad[i] + s2p::tile_index(); });
}
// EXPECT: 8:67: error: the forall body calls s2p::tile_index(), so it computes something different on each tile
