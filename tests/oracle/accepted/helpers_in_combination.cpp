// Features in combination: a forall that writes two fields and reads through a helper (its
// further output under stealing and on mpi ranks), and one that reads its own output through a
// helper on a lopsided map: seq2par must see that read (the launch is not write-only), or a
// stolen task starts without the output's values.
#include <seq2par/seq2par.h>
#include <cstdio>
#include <vector>
template <class F> float next_of(const F& f, long k) { return f[{k + 1}]; }
template <class F> float halved(const F& f, s2p::index<1> j) { return f[j] * 0.5f; }
// Further outputs, one read through a helper.
S2P_KERNEL S2P_TILES(4) void two(s2p::field<1, float>& y, s2p::field<1, float>& z,
                                 const s2p::field<1, float>& x, const s2p::field<1, float>& w) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {8}, 4).weights({5.0, 1.0, 1.0, 1.0});
  auto longer = s2p::resource_map<1>::block_cyclic(w.extent(), {8}, 4);
  auto Xd = s2p::agile(x, map);
  auto Wd = s2p::agile(w, longer);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    Yd[i] = Xd[i] + next_of(Wd, i[0]);
    Zd[i] = Yd[i] * 2.0f - next_of(Wd, i[0]);
  });
}
// The output read through a helper, on a lopsided map: stolen tasks need its values.
S2P_KERNEL S2P_TILES(4) void decay(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(y.extent(), {8}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = halved(Yd, i) + Xd[i]; });
}
int main() {
  const long n = 240;
  std::vector<float> x(n), w(n + 1), y(n, 0.0f), z(n, 0.0f), v(n);
  for (long k = 0; k < n; ++k) { x[k] = static_cast<float>(k % 13); v[k] = static_cast<float>(k % 7) + 1.0f; }
  for (long k = 0; k <= n; ++k) w[k] = static_cast<float>((k * 3) % 17) * 0.5f;
  s2p::field<1, float> Y(y.data(), {n}), Z(z.data(), {n}), V(v.data(), {n});
  const s2p::field<1, float> X(x.data(), {n});
  two(Y, Z, X, s2p::field<1, float>(w.data(), {n + 1}));
  decay(V, X);
  for (long q = 0; q < n; ++q)
    std::printf("%a %a %a\n", static_cast<double>(y[q]), static_cast<double>(z[q]), static_cast<double>(v[q]));
}
