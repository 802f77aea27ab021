// A kernel local the body reads (a loop's bound) and then writes: every tile runs the body at
// once, and the sequential loop's later iterations see the new value (the read must not hide
// the write from the check).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& B, const s2p::field<2, double>& C) {
  auto Bd = s2p::agile(B, s2p::resource_map<2>::block(B.extent(), 4));
  auto Cd = s2p::agile(C, s2p::resource_map<2>::block(C.extent(), 4));
  int m = 3;
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    for (int k = 0; k < m; ++k)
      Bd[i] += Cd[{k, i[1]}];
    m = 5;
  });
}
// EXPECT: 12:7: error: the forall body writes 'm', which it captured from the kernel
