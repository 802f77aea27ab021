#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto a = At(b);
    (void)a;
  });
}
// EXPECT: 8:3: error: this forall over 'Ct.blocks()' never accesses its output block 'Ct(b)'
