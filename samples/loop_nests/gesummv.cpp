// gesummv: y = alpha * A * x + beta * B * x (PolyBench's summed matrix-vector products): a
// forall over y whose body keeps PolyBench's two running sums as locals.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 46;
} // namespace

S2P_KERNEL S2P_TILES(4) void gesummv(double alpha, double beta, const s2p::field<2, double>& A,
                                     const s2p::field<2, double>& B,
                                     const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto m_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto v_map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Ad = s2p::agile(A, m_map);
  auto Bd = s2p::agile(B, m_map);
  auto xd = s2p::agile(x, v_map);
  auto yd = s2p::agile(y, v_map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double tmp = 0.0, acc = 0.0;
    for (int j = 0; j < xd.extent()[0]; ++j) {
      tmp = Ad[{i[0], j}] * xd[{j}] + tmp;
      acc = Bd[{i[0], j}] * xd[{j}] + acc;
    }
    yd[i] = alpha * tmp + beta * acc;
  });
}

int main() {
  std::vector<double> a(kN * kN), b(kN * kN), x(kN), y(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<double>(i % kN) / kN;
    for (int j = 0; j < kN; ++j) {
      a[i * kN + j] = static_cast<double>((i * j + 1) % kN) / kN;
      b[i * kN + j] = static_cast<double>((i * j + 2) % kN) / kN;
    }
  }
  s2p::field<1, double> Y(y.data(), {kN});
  gesummv(1.5, 1.2, s2p::field<2, double>(a.data(), {kN, kN}),
          s2p::field<2, double>(b.data(), {kN, kN}), s2p::field<1, double>(x.data(), {kN}), Y);
  sample::print_array("y", y.data(), y.size());
  return 0;
}
