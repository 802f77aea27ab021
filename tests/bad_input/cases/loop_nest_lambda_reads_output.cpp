// A lambda of the body is read where it is called, so a read of the output it makes at another
// index is the dependence a direct read would be: refused with the iterations that conflict.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto before = [&](long r) { return yd[{r}]; };
    if (i[0] > 0)
      yd[i] = before(i[0] - 1) + xd[i];
    else
      yd[i] = xd[i];
  });
}
// EXPECT: 9:40: error: the forall reads 'yd', the field it writes, where another iteration writes it: iteration (i0) reads y(i0 - 1), which iteration (i0 - 1) writes; its iterations run in parallel, each seeing 'yd' as it was before the forall
