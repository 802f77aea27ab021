// 3mm: G = (A * B) * (C * D), as PolyBench's three matrix-product loop nests in one kernel:
// E = A * B, F = C * D, G = E * F, each a forall over its output's elements.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kNi = 24, kNj = 28, kNk = 32, kNl = 26, kNm = 30;
} // namespace

S2P_KERNEL S2P_TILES(4) void three_mm(s2p::field<2, double>& E, const s2p::field<2, double>& A,
                                      const s2p::field<2, double>& B, s2p::field<2, double>& F,
                                      const s2p::field<2, double>& C,
                                      const s2p::field<2, double>& D, s2p::field<2, double>& G) {
  auto e_map = s2p::resource_map<2>::block(E.extent(), 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto b_map = s2p::resource_map<2>::block(B.extent(), 4);
  auto f_map = s2p::resource_map<2>::block(F.extent(), 4);
  auto c_map = s2p::resource_map<2>::block(C.extent(), 4);
  auto d_map = s2p::resource_map<2>::block(D.extent(), 4);
  auto g_map = s2p::resource_map<2>::block(G.extent(), 4);
  auto Ed = s2p::agile(E, e_map);
  auto Ad = s2p::agile(A, a_map);
  auto Bd = s2p::agile(B, b_map);
  auto Fd = s2p::agile(F, f_map);
  auto Cd = s2p::agile(C, c_map);
  auto Dd = s2p::agile(D, d_map);
  auto Gd = s2p::agile(G, g_map);
  s2p::forall(Ed.extent(), [&](s2p::index<2> i) {
    Ed[i] = 0.0;
    for (int k = 0; k < Ad.extent()[1]; ++k)
      Ed[i] += Ad[{i[0], k}] * Bd[{k, i[1]}];
  });
  s2p::forall(Fd.extent(), [&](s2p::index<2> i) {
    Fd[i] = 0.0;
    for (int k = 0; k < Cd.extent()[1]; ++k)
      Fd[i] += Cd[{i[0], k}] * Dd[{k, i[1]}];
  });
  s2p::forall(Gd.extent(), [&](s2p::index<2> i) {
    Gd[i] = 0.0;
    for (int k = 0; k < Ed.extent()[1]; ++k)
      Gd[i] += Ed[{i[0], k}] * Fd[{k, i[1]}];
  });
}

int main() {
  std::vector<double> e(kNi * kNj), a(kNi * kNk), b(kNk * kNj), f(kNj * kNl), c(kNj * kNm),
      d(kNm * kNl), g(kNi * kNl);
  const auto fill = [](std::vector<double>& v, int cols, int mod, int salt) {
    for (std::size_t k = 0; k < v.size(); ++k) {
      const int row = static_cast<int>(k) / cols, col = static_cast<int>(k) % cols;
      v[k] = static_cast<double>((row * (col + salt) + 1) % mod) / (5.0 * mod);
    }
  };
  fill(a, kNk, kNi, 0);
  fill(b, kNj, kNj, 1);
  fill(c, kNm, kNl, 3);
  fill(d, kNl, kNk, 2);
  s2p::field<2, double> E(e.data(), {kNi, kNj}), F(f.data(), {kNj, kNl}), G(g.data(), {kNi, kNl});
  const s2p::field<2, double> A(a.data(), {kNi, kNk}), B(b.data(), {kNk, kNj});
  const s2p::field<2, double> C(c.data(), {kNj, kNm}), D(d.data(), {kNm, kNl});
  three_mm(E, A, B, F, C, D, G);
  sample::print_array("G", g.data(), g.size());
  return 0;
}
