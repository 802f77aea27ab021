// An element of an agile field bound to a reference the body may write through counts as
// written: at the output's own index it is the output, at the index it is a further output; at
// another index it is refused as any write there is, and so is its address (a pointer reaches
// elements no index names) and a helper returning such a reference.
#include <seq2par/seq2par.h>
template <class F> double& cell(const F& f, long c) { return f[{c}]; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    const double* p = &xd[i];
    yd[i] = p[0];
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    yd[i] = xd[i];
    cell(xd, i[0]) = 2.0;
  });
}
S2P_KERNEL S2P_TILES(4) void shifted(s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    yd[i] = xd[i];
    if (i[0] + 1 < 40) {
      double& next = xd[{i[0] + 1}];
      next = 0.0;
    }
  });
}
// EXPECT: 12:24: error: the forall body takes the address of an element of agile field 'xd'; a pointer reaches elements no index of the body names: index the field itself
// EXPECT: 6:62: error: the forall body writes 'f' (agile field 'xd' in helper 'cell'), or lets a reference to it out of the helper; write the output in the forall body itself (Yd[i] = helper(...))
// EXPECT: 27:22: error: the forall writes 'xd', a field it writes, at another index than its own; each element must be computed where it is owned, from values of the other fields
