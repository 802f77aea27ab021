// --plan fuses two foralls, but the second reads the first one's output at the index plus a
// kernel parameter: in one fused task that element is another task's, not yet computed. The
// relations keep `lag` as a parameter and find a pair of iterations for some value of it.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(int lag, const s2p::field<1, double>& x, s2p::field<1, double>& y,
                               s2p::field<1, double>& z) {
  const long n = x.extent()[0];
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag < n)
      Zd[i] = Yd[{i[0] + lag}];
  });
}
// EXPECT: 14:3: error: plan fuse_shifted_output_read.plan.json fuses steps 0..1 but step 1 reads element i+lag of 'Yd', which step 0 writes
