// jacobi-2d: the 5-point Jacobi stencil, PolyBench's time loop kept in the kernel: each step
// sweeps A into B and B back into A over the interior. The `if` keeps the reads off the
// boundary; owner-copy moves each tile the rows above and below its band.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40, kSteps = 10;
} // namespace

S2P_KERNEL S2P_TILES(4) void jacobi_2d(int steps, s2p::field<2, double>& A,
                                       s2p::field<2, double>& B) {
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  const auto n = A.extent()[0];
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] >= 1 && i[0] < n - 1 && i[1] >= 1 && i[1] < n - 1)
        Bd[i] = 0.2 * (Ad[i] + Ad[{i[0], i[1] - 1}] + Ad[{i[0], i[1] + 1}] +
                       Ad[{i[0] + 1, i[1]}] + Ad[{i[0] - 1, i[1]}]);
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] >= 1 && i[0] < n - 1 && i[1] >= 1 && i[1] < n - 1)
        Ad[i] = 0.2 * (Bd[i] + Bd[{i[0], i[1] - 1}] + Bd[{i[0], i[1] + 1}] +
                       Bd[{i[0] + 1, i[1]}] + Bd[{i[0] - 1, i[1]}]);
    });
  }
}

int main() {
  std::vector<double> a(kN * kN), b(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      a[i * kN + j] = (static_cast<double>(i) * (j + 2) + 2) / kN;
      b[i * kN + j] = (static_cast<double>(i) * (j + 3) + 3) / kN;
    }
  s2p::field<2, double> A(a.data(), {kN, kN}), B(b.data(), {kN, kN});
  jacobi_2d(kSteps, A, B);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
