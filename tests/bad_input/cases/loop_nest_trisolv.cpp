#include <seq2par/seq2par.h>
// trisolv's forward substitution: x(i) needs every x(j) with j < i, which earlier iterations
// of the row loop compute, so the row loop is sequential. Its forall form reads its own output
// at other indices that earlier iterations write, which seq2par refuses at the dependence.
S2P_KERNEL S2P_TILES(4) void trisolv(const s2p::field<2, double>& L, const s2p::field<1, double>& b,
                                     s2p::field<1, double>& x) {
  auto m_map = s2p::resource_map<2>::block(L.extent(), 4);
  auto v_map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Ld = s2p::agile(L, m_map);
  auto bd = s2p::agile(b, v_map);
  auto xd = s2p::agile(x, v_map);
  s2p::forall(xd.extent(), [&](s2p::index<1> i) {
    xd[i] = bd[i];
    for (int j = 0; j < i[0]; ++j)
      xd[i] -= Ld[{i[0], j}] * xd[{j}];
    xd[i] = xd[i] / Ld[{i[0], i[0]}];
  });
}
// EXPECT: 15:32: error: the forall reads 'xd', the field it writes, where another iteration writes it: iteration (1) reads x(0), which iteration (0) writes
