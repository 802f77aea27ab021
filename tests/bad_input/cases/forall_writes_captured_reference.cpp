// Every tile runs the body at once: `h` would be updated by all of them (threads racy,
// sim happened to match).
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, long>& C, const s2p::field<1, long>& A, long& h) {
  auto map = s2p::resource_map<1>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) {
    Cd[i] = Ad[i] * 2;
    h = h * 31 + Ad[i];
  });
}
// EXPECT: 10:7: error: the forall body writes 'h', which it captured from the kernel
