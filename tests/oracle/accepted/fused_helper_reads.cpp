// A helper inside a fused step (--plan fuses the two foralls, fused_helper_reads.plan.json):
// the fused task calls each body in order with its views, a helper's neighbour read of a
// longer input and its read of the first step's output at the task's own index included.
// Stealing moves such tasks on the lopsided map (greedy, tests/oracle), and mpi deals them.
#include <seq2par/seq2par.h>
#include <cstdio>
#include <vector>
template <class F> float at(const F& f, long k) { return f[{k}]; }
template <class F> float next_of(const F& f, long k) { return f[{k + 1}]; }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, float>& y, s2p::field<1, float>& z,
                               const s2p::field<1, float>& x, const s2p::field<1, float>& w) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {8}, 4).weights({5.0, 1.0, 1.0, 1.0});
  auto longer = s2p::resource_map<1>::block_cyclic(w.extent(), {8}, 4);
  auto Xd = s2p::agile(x, map);
  auto Wd = s2p::agile(w, longer);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 2.0f + next_of(Wd, i[0]); });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = at(Yd, i[0]) - next_of(Wd, i[0]) + Zd[i]; });
}
int main() {
  const long n = 200;
  std::vector<float> x(n), w(n + 1), y(n, 0.0f), z(n);
  for (long k = 0; k < n; ++k) { x[k] = static_cast<float>(k % 13); z[k] = static_cast<float>(k % 5); }
  for (long k = 0; k <= n; ++k) w[k] = static_cast<float>((k * 3) % 17) * 0.5f;
  s2p::field<1, float> Y(y.data(), {n}), Z(z.data(), {n});
  k(Y, Z, s2p::field<1, float>(x.data(), {n}), s2p::field<1, float>(w.data(), {n + 1}));
  for (long q = 0; q < n; ++q) std::printf("%a %a\n", static_cast<double>(y[q]), static_cast<double>(z[q]));
}
