#include <seq2par/seq2par.h>
// A vector shifted in place by a kernel parameter: iteration i reads the element iteration
// i + lag writes. The relations keep `lag` as a parameter (any integer) and find the pair.
S2P_KERNEL S2P_TILES(4) void shift(int lag, s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag < Xd.extent()[0])
      Xd[i] = Xd[{i[0] + lag}];
  });
}
// EXPECT: 9:15: error: the forall reads 'Xd', the field it writes, where another iteration writes it
