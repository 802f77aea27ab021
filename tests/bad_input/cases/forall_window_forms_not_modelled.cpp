#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto yd = s2p::agile(y, map);
  auto xd = s2p::agile(x, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) {
      sum += xd[{k - i[0]}];
      for (int l = 0; l < 2; ++l)
        sum += xd[{i[0] + k + l}];
    }
    yd[i] = sum;
  });
}
// EXPECT: 9:17: error: the index of agile field 'xd' (rank 1) must be the forall's index
// EXPECT: 11:19: error: the index of agile field 'xd' (rank 1) must be the forall's index
