// A forall's output dealt to 2 of a 4-tile kernel's tiles: the runtime refuses it when the
// forall runs.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 2);
  auto yd = s2p::agile(y, map);
  auto xd = s2p::agile(x, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) { yd[i] = xd[i]; });
}
// EXPECT: 8:3: error: the forall writes 'yd', which resource map 'map' deals to 2 tiles, but the kernel spans 4 (S2P_TILES): a forall's output is dealt to every tile of
