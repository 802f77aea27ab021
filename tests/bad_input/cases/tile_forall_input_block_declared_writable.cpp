#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto c = Ct(b);
    const s2p::field<2, double> a = At(b);
    s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a[j]; });
  });
}
// EXPECT: 10:33: error: 'a' holds a block of 'At', which is read-only on a tile: declare it 'auto' or 's2p::field<N, const T>'
