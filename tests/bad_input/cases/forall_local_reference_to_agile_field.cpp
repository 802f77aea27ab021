// A local reference to an agile field reads elements no index of the body records: the tiles
// would not be given them.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& z, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const auto& prev = Xd;
    Zd[i] = prev[{i[0] > 0 ? i[0] - 1 : 0}];
  });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd.data()[i]; });
}
// EXPECT: 9:24: error: the forall body uses agile field 'Xd' other than as an element (Xd[index]), its extent() or an argument of a visible helper; seq2par moves to each
// EXPECT: 12:62: error: the forall body calls 'data' on agile field 'Xd', which reaches elements no index of the body names; read elements as Xd[index]
