#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(4) void k(s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block(C.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[{i[0] / 2, i[1]}]; });
}
// EXPECT: 6:62: error: the index of agile field 'Ad' (rank 2) must be the forall's index, or one coordinate per axis of the field, each i[k] or a constant times it, plus a constant and at most one value of the kernel added or subtracted (or plus or minus a counted loop variable of the body), a variable of a counted loop of the body plus a constant, a constant, or a value of the kernel that names neither the index nor the body's other locals
