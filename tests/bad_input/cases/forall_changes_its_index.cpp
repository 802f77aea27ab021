// The index a task is given is what its reads are planned from: a body that changes it reads
// elements its tile was not given.
#include <seq2par/seq2par.h>
template <class F> float shifted(const F& f, s2p::index<1> j) {
  j[0] -= 1;
  return f[j];
}
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& z, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const float here = Xd[i];
    i[0] = i[0] > 0 ? i[0] - 1 : 0;
    Zd[i] = here;
  });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = shifted(Xd, i); });
}
// EXPECT: 14:10: error: the forall body changes its index 'i'; seq2par plans the elements each task reads from the index it is given: write the offset in the index inste
// EXPECT: 6:12: error: the index of 'f' (agile field 'Xd' in helper 'shifted') (rank 1) must be the forall's index, or one coordinate per axis of the field, each i[k] or a constant times it, plus a constant
