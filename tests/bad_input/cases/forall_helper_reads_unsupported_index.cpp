// A helper the forall body passes an agile field to is read as if inlined: its index must be
// an index map of the forall (here a clamp, which is not), else the read goes unrecorded.
#include <seq2par/seq2par.h>
template <class F> float at_clamped(const F& f, long k, long n) {
  return f[{k < 0 ? 0 : k >= n ? n - 1 : k}];
}
float opaque(const s2p::agile_field<1, float>& f, long k);
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& z, const s2p::field<1, float>& y) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = at_clamped(Yd, i[0], 256); });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = opaque(Yd, i[0]); });
}
// EXPECT: 5:12: error: the index of 'f' (agile field 'Yd' in helper 'at_clamped') (rank 1) must be the forall's index, or one coordinate per axis of the field, each i[k] or a constant times it, plus a const
// EXPECT: 13:59: error: the forall body calls 'opaque', whose body seq2par cannot see; every tile runs the body at once, so state it keeps would race or change with the
