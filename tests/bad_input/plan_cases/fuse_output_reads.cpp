// --plan fuses steps 0..1, but step 1 reads its output at another index (the last element,
// which no iteration of it writes): a fused task's views hold the fields the fused steps write
// only at its own index, so fusion refuses such a step.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& w,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Wd = s2p::agile(w, map);
  const int n = w.extent()[0];
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) {
    if (i[0] < n - 1)
      Wd[i] = Yd[i] + Wd[{n - 1}];
  });
}
// EXPECT: 14:3: error: plan fuse_output_reads.plan.json fuses steps 0..1 but step 1 reads 'Wd', its output, at other indices; fusion joins foralls that read what they write only at their own index
