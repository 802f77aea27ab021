#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto c = Ct(b);
    s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = Ad[j]; });
  });
}
// EXPECT: 10:59: error: 'Ad' is an agile field: inside a forall over tile blocks, read data through s2p::tiles(...) views (the global view X[i] needs its own forall)
