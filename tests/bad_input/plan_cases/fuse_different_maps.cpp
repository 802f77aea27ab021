// --plan fuses steps 0..2, but step 2 writes a field on another resource map: its blocks are
// dealt to other tiles, so one task cannot compute all three for its index.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               s2p::field<1, float>& w, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto other = s2p::resource_map<1>::cyclic(w.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  auto Wd = s2p::agile(w, other);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Yd[i] - Xd[i]; });
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Zd[i] + 1.0f; });
}
// EXPECT: 15:3: error: plan fuse_different_maps.plan.json fuses steps 0..2 but step 2 writes 'Wd' on map 'other' and step 0 writes 'Yd' on map 'map'
