#include <seq2par/seq2par.h>
// A coordinate that mixes the index with a loop variable (a convolution's i + k) is not one
// owner-copy plans yet: seq2par says which forms it reads.
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& Y, const s2p::field<1, double>& X) {
  auto map = s2p::resource_map<1>::block(Y.extent(), 4);
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    Yd[i] = 0.0;
    for (int k = 0; k < 3; ++k)
      Yd[i] += Xd[{i[0] + k}];
  });
}
// EXPECT: 11:19: error: the index of agile field 'Xd' (rank 1) must be the forall's index, or one coordinate per axis of the field
