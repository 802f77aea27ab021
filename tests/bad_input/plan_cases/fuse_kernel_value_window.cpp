// --plan fuses two foralls, but the first reads the field the second overwrites, at element 0
// and through a window whose loop a kernel value bounds (i + k, k < taps): a fused task would
// read elements other tasks may already have overwritten. The window may reach any distance
// from the index (taps is a parameter of any sign): beside the fixed read, that once made the
// dependence's witness fail ("isl: unbounded optimum") instead of naming a read.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(int taps, s2p::field<1, float>& x, s2p::field<1, float>& z) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Zd = s2p::agile(z, map);
  const long n = x.extent()[0];
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    float sum = Xd[{0}];
    for (int k = 0; k < taps; ++k)
      if (i[0] + k < n)
        sum += Xd[{i[0] + k}];
    Zd[i] = sum;
  });
  s2p::forall(Xd.extent(), [&](s2p::index<1> i) { Xd[i] = Zd[i] * 0.5f; });
}
// EXPECT: 13:3: error: plan fuse_kernel_value_window.plan.json fuses steps 0..1 but step 0 reads element 0 of 'Xd', which step 1 writes
