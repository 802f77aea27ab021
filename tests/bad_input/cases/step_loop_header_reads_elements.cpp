#include <seq2par/seq2par.h>
// A loop around steps runs on the host between launches; its header must not read elements
// the steps write (here it stops when a value converges).
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& A, s2p::field<1, double>& B) {
  auto map = s2p::resource_map<1>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  for (int t = 0; t < 10 && A[{0}] > 1.0; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<1> i) { Bd[i] = Ad[i] * 0.5; });
    s2p::forall(Ad.extent(), [&](s2p::index<1> i) { Ad[i] = Bd[i]; });
  }
}
// EXPECT: 8:29: error: the header of a loop around steps may call only s2p's view functions (extent(), blocks()); this call could read what a step writes
