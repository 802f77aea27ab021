#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto c = Ct(b);
    const auto a = At({b[0] / 2, b[1]});
    s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a[j]; });
  });
}
// EXPECT: 10:20: error: a tile access 'At(...)' takes the block index, or one built from it with each coordinate b[k] (or a constant times it) plus a constant (like {b[1], b[0]}, {2 * b[0], k}), a variable of a loop in the body (like {b[0], k}: the task reads every block of the loop's range), a constant, or a value of the kernel
