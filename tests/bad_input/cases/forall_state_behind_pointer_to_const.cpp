// A pointer to const is no promise either: the object it points to keeps a mutable member its
// const method changes, which every tile would share.
#include <seq2par/seq2par.h>
struct Tally {
  mutable long seen = 0;
  long next() const { return ++seen; }
};
Tally tally_storage;
const Tally* const tally = &tally_storage;
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& z, const s2p::field<1, long>& x) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] + tally->next(); });
}
// EXPECT: 14:67: error: the forall body uses global variable 'tally' (const, but it reaches memory that can change through it
