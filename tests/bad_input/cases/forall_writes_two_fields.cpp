#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(2) void k(s2p::field<1, float>& x, s2p::field<1, float>& y) {
  auto map = s2p::resource_map<1>::block(x.extent(), 2);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) {
    Xd[i] = 1.0f;
    Yd[i] = 2.0f;
  });
}
// EXPECT: 8:5: error: a forall may write one agile field; it already writes 'Xd'
