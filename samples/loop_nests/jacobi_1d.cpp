// jacobi-1d: the 3-point Jacobi stencil over a vector, PolyBench's time loop kept in the
// kernel: each step sweeps A into B, then B into A, over the interior (the boundary `if` is
// what keeps the reads inside the vector; owner-copy moves each tile its two halo elements).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 120, kSteps = 20;
} // namespace

S2P_KERNEL S2P_TILES(4) void jacobi_1d(int steps, s2p::field<1, double>& A,
                                       s2p::field<1, double>& B) {
  auto map = s2p::resource_map<1>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  const auto n = A.extent()[0];
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<1> i) {
      if (i[0] >= 1 && i[0] < n - 1)
        Bd[i] = 0.33333 * (Ad[{i[0] - 1}] + Ad[i] + Ad[{i[0] + 1}]);
    });
    s2p::forall(Ad.extent(), [&](s2p::index<1> i) {
      if (i[0] >= 1 && i[0] < n - 1)
        Ad[i] = 0.33333 * (Bd[{i[0] - 1}] + Bd[i] + Bd[{i[0] + 1}]);
    });
  }
}

int main() {
  std::vector<double> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) {
    a[i] = (static_cast<double>(i) + 2) / kN;
    b[i] = (static_cast<double>(i) + 3) / kN;
  }
  s2p::field<1, double> A(a.data(), {kN}), B(b.data(), {kN});
  jacobi_1d(kSteps, A, B);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
