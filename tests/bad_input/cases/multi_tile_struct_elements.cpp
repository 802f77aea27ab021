// A distributed field of structs: the runtime moves and accounts elements by their arithmetic
// type, so the generated program would not compile; refused at the agile view instead.
#include <seq2par/seq2par.h>
struct Particle {
  double position, velocity;
};
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, Particle>& p, s2p::field<1, double>& e) {
  auto map = s2p::resource_map<1>::block(p.extent(), 4);
  auto Pd = s2p::agile(p, map);
  auto Ed = s2p::agile(e, map);
  s2p::forall(Ed.extent(), [&](s2p::index<1> i) { Ed[i] = 0.5 * Pd[i].velocity * Pd[i].velocity; });
}
// EXPECT: 9:8: error: 'Pd' distributes elements of type 'Particle'; a multi-tile kernel moves elements of an integer, float or double type: keep each member of a struct in a field of its own
