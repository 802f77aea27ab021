// mvt: x1 = x1 + A * y1 and x2 = x2 + A^T * y2 (PolyBench's matrix-vector product and
// transpose), one forall per vector update; each element reads its own old value, a row or a
// column of A, and a whole vector.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 44;
} // namespace

S2P_KERNEL S2P_TILES(4) void mvt(s2p::field<1, double>& x1, s2p::field<1, double>& x2,
                                 const s2p::field<1, double>& y1, const s2p::field<1, double>& y2,
                                 const s2p::field<2, double>& A) {
  auto v_map = s2p::resource_map<1>::block(x1.extent(), 4);
  auto a_map = s2p::resource_map<2>::block_block(A.extent(), {11, 22}, 4);
  auto x1d = s2p::agile(x1, v_map);
  auto x2d = s2p::agile(x2, v_map);
  auto y1d = s2p::agile(y1, v_map);
  auto y2d = s2p::agile(y2, v_map);
  auto Ad = s2p::agile(A, a_map);
  s2p::forall(x1d.extent(), [&](s2p::index<1> i) {
    for (int j = 0; j < Ad.extent()[1]; ++j)
      x1d[i] = x1d[i] + Ad[{i[0], j}] * y1d[{j}];
  });
  s2p::forall(x2d.extent(), [&](s2p::index<1> i) {
    for (int j = 0; j < Ad.extent()[0]; ++j)
      x2d[i] = x2d[i] + Ad[{j, i[0]}] * y2d[{j}];
  });
}

int main() {
  std::vector<double> x1(kN), x2(kN), y1(kN), y2(kN), a(kN * kN);
  for (int i = 0; i < kN; ++i) {
    x1[i] = static_cast<double>(i % kN) / kN;
    x2[i] = static_cast<double>((i + 1) % kN) / kN;
    y1[i] = static_cast<double>((i + 3) % kN) / kN;
    y2[i] = static_cast<double>((i + 4) % kN) / kN;
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = static_cast<double>(i * j % kN) / kN;
  }
  s2p::field<1, double> X1(x1.data(), {kN}), X2(x2.data(), {kN});
  mvt(X1, X2, s2p::field<1, double>(y1.data(), {kN}), s2p::field<1, double>(y2.data(), {kN}),
      s2p::field<2, double>(a.data(), {kN, kN}));
  sample::print_array("x1", x1.data(), x1.size());
  sample::print_array("x2", x2.data(), x2.size());
  return 0;
}
