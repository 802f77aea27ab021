// --plan fuses steps 0..1, but step 1 is inside a loop around steps and step 0 is not: the
// loop runs step 1 several times and step 0 once, so one fused forall cannot do both.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(int steps, s2p::field<1, float>& y, s2p::field<1, float>& w,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Wd = s2p::agile(w, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  for (int t = 0; t < steps; ++t)
    s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Wd[i] + Xd[i]; });
}
// EXPECT: 13:5: error: plan fuse_across_loop.plan.json fuses steps 0..1 but step 1 and step 0 are not inside the same loops of the kernel
