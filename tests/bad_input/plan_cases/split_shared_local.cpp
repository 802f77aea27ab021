// --plan splits a forall that writes two fields into two foralls, but both statements that
// write read the local `t` the first part declares: the second forall would not have it.
#include <seq2par/seq2par.h>

S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    const float t = Xd[i] * 2.0f;
    Yd[i] = t;
    Zd[i] = t + 1.0f;
  });
}
// EXPECT: 14:5: error: plan split_shared_local.plan.json splits step 0 into 2 parts but the statement at line 14 (part 1) reads 't', which the statement at line 12 declares in part 0
