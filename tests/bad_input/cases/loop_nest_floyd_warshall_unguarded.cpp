#include <seq2par/seq2par.h>
// floyd-warshall's relaxation through k without its `if`: iteration (i, k) writes path(i, k),
// which every other iteration of row i reads. The values would agree (a path through k to k is
// no shorter), but the forall's iterations are not independent as written, so seq2par refuses
// it; `if (i[0] != k && i[1] != k)` (samples/loop_nests/floyd_warshall.cpp) is accepted.
S2P_KERNEL S2P_TILES(4) void floyd_warshall(s2p::field<2, double>& paths) {
  auto map = s2p::resource_map<2>::block(paths.extent(), 4);
  auto Pd = s2p::agile(paths, map);
  const int n = paths.extent()[0];
  for (int k = 0; k < n; ++k)
    s2p::forall(Pd.extent(), [&](s2p::index<2> i) {
      const double through = Pd[{i[0], k}] + Pd[{k, i[1]}];
      Pd[i] = Pd[i] < through ? Pd[i] : through;
    });
}
// EXPECT: 12:30: error: the forall reads 'Pd', the field it writes, where another iteration writes it: iteration (0, 1) reads paths(0, 0), which iteration (0, 0) writes
