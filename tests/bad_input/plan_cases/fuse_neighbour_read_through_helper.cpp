// --plan fuses two foralls, but the second reads element i+1 of the field the first writes
// through a helper: the helper's read is one of the forall's accesses, so the fusion is refused.
#include <seq2par/seq2par.h>
template <class F> float left_of(const F& f, long k) { return f[{k - 1}]; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto shifted = s2p::resource_map<1>::block(y.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Ys = s2p::agile(y, shifted);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = left_of(Ys, i[0] + 2) - Xd[i]; });
}
// EXPECT: 14:3: error: plan fuse_neighbour_read_through_helper.plan.json fuses steps 0..1 but step 1 reads element i+1 of 'Ys', which step 0 writes (a fused task reads t
