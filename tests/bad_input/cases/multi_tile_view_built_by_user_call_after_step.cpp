// Views declared after a step but built by a user function, or offset by an element the step
// writes: the generated kernel runs its declarations before its steps, so `snapshot` would copy
// y, and y(0) read it, before the forall wrote it.
#include <seq2par/seq2par.h>
#include <vector>
inline std::vector<float> copies;
inline float* snapshot(const s2p::field<1, float>& f) {
  copies.assign(f.data(), f.data() + f.extent()[0]);
  return copies.data();
}
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f; });
  s2p::field<1, float> before(snapshot(y), y.extent());
  s2p::field<1, float> shifted(y.data() + static_cast<int>(y(0)), y.extent());
  auto Bd = s2p::agile(before, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Bd[i] + Yd[i]; });
}
// EXPECT: 18:31: error: 'before' is declared after the kernel's first step (line 17) and built by a call seq2par cannot see into
// EXPECT: 19:60: error: 'shifted' is declared after the kernel's first step (line 17) and built by a call seq2par cannot see into
