// A forall that writes two fields reads one of them at a neighbour's index: that element is
// another task's (perhaps another tile's), so what it reads would depend on the order tasks run.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(2) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 2);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    Yd[i] = Xd[i];
    Zd[i] = Yd[{i[0] + 1}];
  });
}
// EXPECT: 12:13: error: the forall reads 'Yd', a field it writes, at another index than its own; each element must be computed where it is owned, from values of the other fields
