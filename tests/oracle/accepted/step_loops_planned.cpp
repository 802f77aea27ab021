// Loops around steps under a plan (step_loops_planned.plan.json): inside a time loop, two of
// its three foralls fused into one; after the loop, a forall that writes two fields split into
// two. The loop must keep enclosing exactly the steps it enclosed (one fewer, and none of the
// split's parts), so the program computes what its sequential build computes.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40;
} // namespace

S2P_KERNEL S2P_TILES(4) void k(int steps, s2p::field<1, float>& y, s2p::field<1, float>& w,
                               s2p::field<1, float>& u, s2p::field<1, float>& v,
                               const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Wd = s2p::agile(w, map);
  auto Ud = s2p::agile(u, map);
  auto Vd = s2p::agile(v, map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 0.5f + Wd[i]; });
    s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Yd[i] - static_cast<float>(t); });
    s2p::forall(Ud.extent(), [&](s2p::index<1> i) { Ud[i] = Ud[i] + Xd[i] + Wd[i]; });
  }
  s2p::forall(Vd.extent(), [&](s2p::index<1> i) {
    Vd[i] = Vd[i] * 0.75f + Yd[i];
    Yd[i] = Yd[i] + Wd[i] + Ud[i];
  });
}

int main() {
  std::vector<float> x(kN), y(kN, 0.0f), w(kN, 1.0f), u(kN, 0.5f), v(kN, 0.25f);
  for (int k = 0; k < kN; ++k)
    x[k] = static_cast<float>(k % 9) - 4.0f;
  s2p::field<1, float> Y(y.data(), {kN}), W(w.data(), {kN}), U(u.data(), {kN}), V(v.data(), {kN});
  k(5, Y, W, U, V, s2p::field<1, float>(x.data(), {kN}));
  sample::print_array("y", y.data(), y.size());
  sample::print_array("v", v.data(), v.size());
  return 0;
}
