// A declaration after a step that reads a field the step writes: the generated kernel runs its
// declarations before its steps, so `first` would be y's element before the forall wrote it.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  auto cyclic = s2p::resource_map<1>::cyclic(y.extent(), 4); // a view: fine after a step
  auto Yc = s2p::agile(y, cyclic);
  constexpr float kHalf = 0.5f;
  const float first = y(0) + kHalf;
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Yc[i] * first; });
}
// EXPECT: 14:3: error: 'first' is declared after the kernel's first step (line 10); seq2par runs a multi-tile kernel's declarations before its steps
