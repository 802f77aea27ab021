#include <seq2par/seq2par.h>
// A multi-tile kernel's declarations run once, before its steps: a loop around steps may not
// declare anything, and a loop without a step is not one seq2par plans.
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& A, s2p::field<1, double>& B) {
  auto map = s2p::resource_map<1>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  for (int t = 0; t < 4; ++t) {
    const double scale = 0.5 * t;
    s2p::forall(Bd.extent(), [&](s2p::index<1> i) { Bd[i] = Ad[i] * scale; });
  }
  for (int t = 0; t < 4; ++t) {
  }
}
// EXPECT: 9:5: error: declare this before the loop: seq2par runs a multi-tile kernel's declarations once, before its steps
// EXPECT: 12:3: error: this loop has no step (s2p::forall or a collective) inside
