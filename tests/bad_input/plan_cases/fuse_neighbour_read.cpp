// --plan fuses three foralls, but the second reads element i+1 of the field the first writes:
// in one fused task that element is another task's, not yet computed (or on another tile).
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               s2p::field<1, float>& w, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto shifted = s2p::resource_map<1>::block(y.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Ys = s2p::agile(y, shifted);
  auto Zd = s2p::agile(z, map);
  auto Wd = s2p::agile(w, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Ys[{i[0] + 1}] - Xd[i]; });
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Zd[i] + 1.0f; });
}
// EXPECT: 15:3: error: plan fuse_neighbour_read.plan.json fuses steps 0..2 but step 1 reads element i+1 of 'Ys', which step 0 writes
