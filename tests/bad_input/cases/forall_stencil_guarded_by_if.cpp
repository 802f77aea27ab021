// A stencil whose boundary is guarded by an `if`: the reads are planned from the indices alone
// (not yet under the guard), so the first tile's read of element -1 would fail when the kernel
// runs with the extents this file calls it with.
#include <seq2par/seq2par.h>
#include <vector>
S2P_KERNEL S2P_TILES(4) void smooth(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] > 0 && i[0] < 63)
      Yd[i] = (Xd[{i[0] - 1}] + Xd[{i[0] + 1}]) * 0.5f;
    else
      Yd[i] = Xd[i];
  });
}
int main() {
  std::vector<float> a(64, 1.0f), b(64, 0.0f);
  s2p::field<1, float> Y(b.data(), {64});
  smooth(Y, s2p::field<1, float>(a.data(), {64}));
}
// EXPECT: 10:3: error: kernel 'smooth': the forall fails when the kernel runs with the extents of the call at forall_stencil_guarded_by_if.cpp:20: seq2par: forall reads
