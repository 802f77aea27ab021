// A block task that binds an element of an input block to a reference (or passes it to a
// `double&` parameter) may write the input through it, which the sequential build does and the
// tiles cannot (an input block is read-only there: the generated task did not compile).
#include <seq2par/seq2par.h>
inline void bump(double& v) { v += 1.0; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& A, s2p::field<2, double>& C) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {2, 8}, 4).algorithmic_blocks({2, 8});
  auto Ad = s2p::agile(A, map);
  auto Cd = s2p::agile(C, map);
  auto At = s2p::tiles(Ad);
  auto Ct = s2p::tiles(Cd);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    auto a = At(b);
    auto c = Ct(b);
    for (long r = 0; r < 2; ++r)
      for (long q = 0; q < 8; ++q) {
        double& x = a(r, q);
        c(r, q) = x * 2.0;
        bump(a(r, q));
      }
  });
}
// EXPECT: 17:21: error: this binds an element of a block read through s2p::tiles(...) to a reference or pointer it may write through; only the forall's output block 'Ct(b)' may be written (read the element by value, or through a const reference)
// EXPECT: 19:14: error: this binds an element of a block read through s2p::tiles(...) to a reference or pointer it may write through; only the forall's output block 'Ct(b)' may be written (read the element by value, or through a const reference)
