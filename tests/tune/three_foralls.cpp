// Three consecutive element-wise foralls over one resource map (tests/tune): the
// "three consecutive ops on the same tiles" tuning case. Each forall reads, of what the others
// write, only its own index, so `--plan` may fuse them into one (fewer supersteps); the default
// rule `fuse-three-foralls` does.
#include <seq2par/seq2par.h>

#include <cstddef>
#include <cstdio>
#include <vector>

S2P_KERNEL S2P_TILES(4) void three_ops(s2p::field<1, float>& y, s2p::field<1, float>& z,
                                       s2p::field<1, float>& w, const s2p::field<1, float>& x,
                                       float scale) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  auto Wd = s2p::agile(w, map);
  // y again, dealt cyclically: the third forall reads its own index of it, which is the same
  // element the first forall wrote (a fused task reads it from the output it updated).
  auto cyclic = s2p::resource_map<1>::cyclic(y.extent(), 4);
  auto Yc = s2p::agile(y, cyclic);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * scale + 1.0f; });
  s2p::forall(Zd.extent(), [&](s2p::index<1> j) { Zd[j] = Yd[j] * Yd[j] - Xd[j]; });
  s2p::forall(Wd.extent(), [&](s2p::index<1> i) { Wd[i] = Zd[i] + Yc[i] * 0.5f; });
}

int main() {
  const std::size_t n = 4096;
  std::vector<float> x(n), y(n, 0.0f), z(n, 0.0f), w(n, 0.0f);
  for (std::size_t k = 0; k < n; ++k)
    x[k] = static_cast<float>(k % 37) * 0.125f;
  s2p::field<1, float> Y(y.data(), {4096}), Z(z.data(), {4096}), W(w.data(), {4096});
  three_ops(Y, Z, W, s2p::field<1, float>(x.data(), {4096}), 3.0f);
  for (std::size_t k = 0; k < n; ++k)
    std::printf("%a %a %a\n", static_cast<double>(y[k]), static_cast<double>(z[k]),
                static_cast<double>(w[k]));
  return 0;
}
