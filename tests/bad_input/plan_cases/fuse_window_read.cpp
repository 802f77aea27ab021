// --plan fuses two foralls, but the second reads the first's output through a window of the
// index (a convolution's i + k): elements i+1 and i+2 are other tasks', not yet computed.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    float sum = 0.0f;
    for (int k = 0; k < 3; ++k)
      sum += Yd[{i[0] + k}];
    Zd[i] = sum;
  });
}
// EXPECT: 12:3: error: plan fuse_window_read.plan.json fuses steps 0..1 but step 1 reads element i+k of 'Yd', which step 0 writes
