// A lambda the kernel made, called in the body, updates what it captured by reference.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  long calls = 0;
  auto count = [&calls](long v) { return v + ++calls; };
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) { Cd[i] = count(Ad[i]); });
}
// EXPECT: 9:59: error: the forall body calls a function pointer or a callable object
