// Const-qualification is not immutability: a const pointer to a counter, a mutable member of a
// const object and a constant function pointer to a function that bumps a global all change
// state every tile would share.
#include <seq2par/seq2par.h>
long storage = 0;
long* const counter = &storage;
struct Tally {
  mutable long seen = 0;
  long next() const { return ++seen; }
};
const Tally tally{};
long calls = 0;
long bump() { return ++calls; }
constexpr long (*step)() = &bump;
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& z, const s2p::field<1, long>& x) {
  auto map = s2p::resource_map<1>::block(z.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] + (*counter)++; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] + tally.next(); });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] + step(); });
}
// EXPECT: 19:69: error: the forall body uses global variable 'counter' (const, but it reaches memory that can change through it: a pointer to non-const or a mutable memb
// EXPECT: 20:67: error: the forall body uses global variable 'tally' (const, but it reaches memory that can change through it: a pointer to non-const or a mutable member
// EXPECT: 21:67: error: the forall body calls a function pointer or a callable object, whose effects seq2par cannot see; call a function by name
// EXPECT: 13:24: error: the forall body uses global variable 'calls'; every tile runs the body at once, so they would race on it (mark a function whose state changes no
