// Helpers a forall body passes agile fields to are read as if inlined: their element reads
// (at the index, a neighbour's, through a second helper) are moved to the tiles like the
// body's own. seq2par once planned none of them, and every backend aborted.
#include <seq2par/seq2par.h>

#include <cstdio>
#include <vector>

template <class F> float next_of(const F& f, long k) { return f[{k + 1}]; }
template <class F> float pair_sum(const F& f, s2p::index<1> j) { return f[j] + next_of(f, j[0]); }
template <class F, class G> float blend(const F& a, const G& b, long k, float w) {
  return a[{k}] * w + b[{k + 2}] * (1.0f - w);
}

S2P_KERNEL S2P_TILES(4) void smooth(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                                    const s2p::field<1, float>& y, float w) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {16}, 4);
  auto longer = s2p::resource_map<1>::block_cyclic(y.extent(), {16}, 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, longer);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    Zd[i] = pair_sum(Yd, i) + blend(Xd, Yd, i[0], w);
  });
}

int main() {
  const std::size_t n = 250;
  std::vector<float> x(n), y(n + 2), z(n, 0.0f);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k % 23) * 0.5f;
  for (std::size_t k = 0; k < y.size(); ++k)
    y[k] = static_cast<float>((k * 7) % 31) - 3.0f;
  s2p::field<1, float> Z(z.data(), {static_cast<std::int64_t>(n)});
  smooth(Z, s2p::field<1, float>(x.data(), {static_cast<std::int64_t>(n)}),
         s2p::field<1, float>(y.data(), {static_cast<std::int64_t>(n + 2)}), 0.25f);
  for (const float v : z)
    std::printf("%a\n", static_cast<double>(v));
  return 0;
}
