// A forall over another field's extent than its output's: the tiles compute every element of
// the output where it is owned, the sequential loop only those of the extent.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xmap = s2p::resource_map<1>::block(x.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, xmap);
  s2p::forall(x.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
}
// EXPECT: 9:15: error: the forall runs over this extent but writes 'Yd', whose elements the tiles compute where they are owned (every element of it, and only those); run
