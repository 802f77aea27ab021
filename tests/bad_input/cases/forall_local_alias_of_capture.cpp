// A local pointer to a captured buffer: writes through it reach memory every tile shares.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A, long* log) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) {
    long* out = log;
    out[i[0]] = Ad[i];
    Cd[i] = Ad[i];
  });
}
// EXPECT: 8:11: error: 'out' refers to 'log', which the forall body captured from the kernel
