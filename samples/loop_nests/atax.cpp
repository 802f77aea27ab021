// atax: y = A^T (A x), as PolyBench's two loop nests over vectors and a matrix: tmp(i) is row
// i of A times x, then y(j) is column j of A times tmp. Each forall runs over a vector and
// reads the matrix a row (A(i, k)) or a column (A(k, j)) at a time, and a whole vector; the
// vectors stay vectors (s2p::field<1, double>).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kM = 38, kN = 42;
} // namespace

S2P_KERNEL S2P_TILES(4) void atax(const s2p::field<2, double>& A, const s2p::field<1, double>& x,
                                  s2p::field<1, double>& tmp, s2p::field<1, double>& y) {
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto x_map = s2p::resource_map<1>::block(x.extent(), 4);
  auto tmp_map = s2p::resource_map<1>::block(tmp.extent(), 4);
  auto y_map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Ad = s2p::agile(A, a_map);
  auto xd = s2p::agile(x, x_map);
  auto tmpd = s2p::agile(tmp, tmp_map);
  auto yd = s2p::agile(y, y_map);
  s2p::forall(tmpd.extent(), [&](s2p::index<1> i) {
    tmpd[i] = 0.0;
    for (int j = 0; j < Ad.extent()[1]; ++j)
      tmpd[i] += Ad[{i[0], j}] * xd[{j}];
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> j) {
    yd[j] = 0.0;
    for (int i = 0; i < Ad.extent()[0]; ++i)
      yd[j] += Ad[{i, j[0]}] * tmpd[{i}];
  });
}

int main() {
  std::vector<double> a(kM * kN), x(kN), tmp(kM), y(kN);
  for (int j = 0; j < kN; ++j)
    x[j] = 1.0 + j / static_cast<double>(kN);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = static_cast<double>((i + j) % kN) / (5.0 * kM);
  s2p::field<1, double> T(tmp.data(), {kM}), Y(y.data(), {kN});
  atax(s2p::field<2, double>(a.data(), {kM, kN}), s2p::field<1, double>(x.data(), {kN}), T, Y);
  sample::print_array("y", y.data(), y.size());
  return 0;
}
