// A helper that names s2p::agile_field in its parameter: on the tiles the body reads a field
// through a view of its own, so the generated code would not compile.
#include <seq2par/seq2par.h>
float left(const s2p::agile_field<1, float>& f, long k) { return f[{k - 1}]; }
template <class F> void store(const F& f, long k) { f[{k}] = 1.0f; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& z, const s2p::field<1, float>& y) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = left(Yd, i[0] + 1); });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    store(Zd, i[0]);
    Zd[i] = Yd[i];
  });
}
// EXPECT: 4:46: error: helper 'left' takes agile field 'Yd' as 'const s2p::agile_field<1, float> &'; on the tiles the body reads a field through a view of its own, so a
// EXPECT: 5:53: error: the forall body writes 'f' (agile field 'Zd' in helper 'store'), or lets a reference to it out of the helper; write the output in the forall body itself (Yd[i] = helper(...))
