// One forall whose body writes two fields (tests/tune): the author fused two element-wise
// operations over one resource map into one forall, which keeps both outputs' blocks live at
// once. `--plan` may split it into two consecutive foralls (loop fission: two supersteps, each
// holding only its own output); either way it computes what the sequential program computes.
#include <seq2par/seq2par.h>

#include <cstddef>
#include <cstdio>
#include <vector>

S2P_KERNEL S2P_TILES(4) void two_outputs(s2p::field<1, float>& y, s2p::field<1, float>& z,
                                         const s2p::field<1, float>& x, float scale) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    const float t = Xd[i] * scale;
    Yd[i] = t + 1.0f;
    Zd[i] = Yd[i] * Yd[i] - Xd[i];
  });
}

int main() {
  const std::size_t n = 4096;
  std::vector<float> x(n), y(n, 0.0f), z(n, 0.0f);
  for (std::size_t k = 0; k < n; ++k)
    x[k] = static_cast<float>(k % 37) * 0.125f;
  s2p::field<1, float> Y(y.data(), {4096}), Z(z.data(), {4096});
  two_outputs(Y, Z, s2p::field<1, float>(x.data(), {4096}), 3.0f);
  for (std::size_t k = 0; k < n; ++k)
    std::printf("%a %a\n", static_cast<double>(y[k]), static_cast<double>(z[k]));
  return 0;
}
