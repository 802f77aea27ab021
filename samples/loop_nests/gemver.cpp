// gemver: A2 = A + u1 v1^T + u2 v2^T, x = x + beta * A2^T y + z, w = alpha * A2 x (PolyBench's
// vector-multiply-and-add kernel), one forall per loop nest: a matrix forall reading four
// vectors, then two vector foralls reading the new matrix a column or a row at a time.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40;
} // namespace

S2P_KERNEL S2P_TILES(4) void gemver(double alpha, double beta, const s2p::field<2, double>& A,
                                    s2p::field<2, double>& A2, const s2p::field<1, double>& u1,
                                    const s2p::field<1, double>& v1,
                                    const s2p::field<1, double>& u2,
                                    const s2p::field<1, double>& v2, s2p::field<1, double>& x,
                                    const s2p::field<1, double>& y, const s2p::field<1, double>& z,
                                    s2p::field<1, double>& w) {
  auto m_map = s2p::resource_map<2>::block_block(A.extent(), {10, 20}, 4);
  auto v_map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Ad = s2p::agile(A, m_map);
  auto A2d = s2p::agile(A2, m_map);
  auto u1d = s2p::agile(u1, v_map);
  auto v1d = s2p::agile(v1, v_map);
  auto u2d = s2p::agile(u2, v_map);
  auto v2d = s2p::agile(v2, v_map);
  auto xd = s2p::agile(x, v_map);
  auto yd = s2p::agile(y, v_map);
  auto zd = s2p::agile(z, v_map);
  auto wd = s2p::agile(w, v_map);
  s2p::forall(A2d.extent(), [&](s2p::index<2> i) {
    A2d[i] = Ad[i] + u1d[{i[0]}] * v1d[{i[1]}] + u2d[{i[0]}] * v2d[{i[1]}];
  });
  s2p::forall(xd.extent(), [&](s2p::index<1> i) {
    for (int j = 0; j < A2d.extent()[0]; ++j)
      xd[i] = xd[i] + beta * A2d[{j, i[0]}] * yd[{j}];
    xd[i] = xd[i] + zd[i];
  });
  s2p::forall(wd.extent(), [&](s2p::index<1> i) {
    for (int j = 0; j < A2d.extent()[1]; ++j)
      wd[i] = wd[i] + alpha * A2d[{i[0], j}] * xd[{j}];
  });
}

int main() {
  std::vector<double> a(kN * kN), a2(kN * kN), u1(kN), v1(kN), u2(kN), v2(kN), x(kN, 0.0),
      y(kN), z(kN), w(kN, 0.0);
  const double n = kN;
  for (int i = 0; i < kN; ++i) {
    u1[i] = i;
    u2[i] = ((i + 1) / n) / 2.0;
    v1[i] = ((i + 1) / n) / 4.0;
    v2[i] = ((i + 1) / n) / 6.0;
    y[i] = ((i + 1) / n) / 8.0;
    z[i] = ((i + 1) / n) / 9.0;
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = static_cast<double>(i * j % kN) / n;
  }
  const auto vec = [](std::vector<double>& v) { return s2p::field<1, double>(v.data(), {kN}); };
  s2p::field<2, double> A2(a2.data(), {kN, kN});
  s2p::field<1, double> X = vec(x), W = vec(w);
  gemver(1.5, 1.2, s2p::field<2, double>(a.data(), {kN, kN}), A2, vec(u1), vec(v1), vec(u2),
         vec(v2), X, vec(y), vec(z), W);
  sample::print_array("x", x.data(), x.size());
  sample::print_array("w", w.data(), w.size());
  return 0;
}
