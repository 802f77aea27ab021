#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 1; k < 3; ++k)
      sum += yd[{i[0] + k}];
    yd[i] = sum;
  });
}
// EXPECT: 8:14: error: the forall reads 'yd', the field it writes, where another iteration writes it: iteration (0) reads y(1), which iteration (1) writes
