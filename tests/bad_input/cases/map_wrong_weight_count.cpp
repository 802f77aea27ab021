#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(3) void k(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {50}, 3).weights({2.0, 1.0});
  auto yd = s2p::agile(y, map);
  auto xd = s2p::agile(x, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) { yd[i] = xd[i]; });
}
// EXPECT: 3:78: error: resource map 'map': 2 weights for 3 tiles
