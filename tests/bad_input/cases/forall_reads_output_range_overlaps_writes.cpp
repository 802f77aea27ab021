#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(int first, s2p::field<2, double>& D) {
  auto Dd = s2p::agile(D, s2p::resource_map<2>::block(D.extent(), 4));
  const int m = D.extent()[0];
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) {
    if (i[0] < first)
      for (int k = first - 1; k < m; ++k)
        Dd[i] += Dd[{k, i[1]}];
  });
}
// EXPECT: 8:18: error: the forall reads 'Dd', the field it writes, where another iteration writes it
