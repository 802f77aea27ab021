#include <seq2par/seq2par.h>
// lu's division step with its guard one row too wide: iteration (k, k) divides the pivot
// itself, which every other iteration of the column reads, so the iterations are not
// independent. The relations keep the kernel's loop variable k as a symbol and find the pair.
S2P_KERNEL S2P_TILES(4) void lu_wide(s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  const int n = A.extent()[0];
  for (int k = 0; k < n; ++k)
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] >= k && i[1] == k)
        Ad[i] = Ad[i] / Ad[{k, k}];
    });
}
// EXPECT: 12:25: error: the forall reads 'Ad', the field it writes, where another iteration writes it: iteration (1, 0) reads A(0, 0), which iteration (0, 0) writes
