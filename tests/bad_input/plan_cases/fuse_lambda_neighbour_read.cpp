// A lambda of the second step reads the first step's output at the next element: a fused task
// would read it before the task that owns that element writes it, so the fusion is refused as
// the same read written in the body is.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void pair(const s2p::field<1, double>& x, s2p::field<1, double>& y,
                                  s2p::field<1, double>& z) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    auto next = [&](long r) { return Yd[{r + 1}]; };
    if (i[0] + 1 < Zd.extent()[0])
      Zd[i] = next(i[0]) + Xd[i];
  });
}
// EXPECT: 12:3: error: plan fuse_lambda_neighbour_read.plan.json fuses steps 0..1 but step 1 reads element i+1 of 'Yd', which step 0 writes (a fused task reads the fields the fused steps write only at its own index; iteration (i0) reads y(i0 + 1), which iteration (i0 + 1) writes)
