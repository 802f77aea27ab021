// --plan fuses steps 0..2, but step 1 is a collective: fusion joins consecutive foralls with
// nothing between them.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<2, float>& rows,
                               s2p::field<1, float>& w, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Wd = s2p::agile(w, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::all_reduce(rows, s2p::sum{});
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Yd[i] + 1.0f; });
}
// EXPECT: 12:3: error: plan fuse_collective_between.plan.json fuses steps 0..2 but step 1 is all_reduce, not a forall
