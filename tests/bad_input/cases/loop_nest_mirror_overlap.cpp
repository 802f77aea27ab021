#include <seq2par/seq2par.h>
// covariance's mirror with its guard one diagonal too wide: iteration (i, i + 1) writes an
// element of the upper triangle, which iteration (i + 1, i) reads. The guard compares two
// coordinates of the index; the relations read it and find the pair.
S2P_KERNEL S2P_TILES(4) void mirror(s2p::field<2, double>& C) {
  auto map = s2p::resource_map<2>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[0] + 1 >= i[1])
      Cd[i] = Cd[{i[1], i[0]}];
  });
}
// EXPECT: 10:15: error: the forall reads 'Cd', the field it writes, where another iteration writes it: iteration (0, 1) reads C(1, 0), which iteration (1, 0) writes
