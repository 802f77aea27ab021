#include <seq2par/seq2par.h>
// seidel-2d's sweep updates A in place: each point reads neighbours the same sweep has already
// updated, so its iterations depend on each other and no forall over them is correct. The
// forall form of it reads its own output where a neighbour writes it, which seq2par refuses
// at the dependence, with the pair of iterations and a note on the sequential form.
S2P_KERNEL S2P_TILES(4) void seidel_2d(int steps, s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  const auto n = A.extent()[0];
  for (int t = 0; t < steps; ++t)
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] >= 1 && i[0] < n - 1 && i[1] >= 1 && i[1] < n - 1)
        Ad[i] = (Ad[{i[0] - 1, i[1]}] + Ad[i] + Ad[{i[0] + 1, i[1]}]) / 3.0;
    });
}
// EXPECT: 13:18: error: the forall reads 'Ad', the field it writes, where another iteration writes it: iteration (i0, i1) reads A(i0 - 1, i1), which iteration (i0 - 1, i1) writes
// EXPECT: 13:18: note: a loop whose iterations need each other's results is a sequential 'for'
