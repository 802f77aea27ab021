// A forall may write several agile fields (the author fused them) only on one resource map:
// each element is computed on the tile that owns it, which two maps may not agree on.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(2) void k(s2p::field<1, float>& x, s2p::field<1, float>& y) {
  auto map = s2p::resource_map<1>::block(x.extent(), 2);
  auto other = s2p::resource_map<1>::cyclic(y.extent(), 2);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, other);
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) {
    Xd[i] = 1.0f;
    Yd[i] = 2.0f;
  });
}
// EXPECT: 11:5: error: a forall that writes several agile fields writes them on one resource map (each element is computed where it is owned): 'Yd' is dealt by 'other' and 'Xd' by 'map'
