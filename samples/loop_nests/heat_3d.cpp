// heat-3d: the 7-point heat equation stencil in three dimensions, PolyBench's time loop kept
// in the kernel (A into B, then B into A, over the interior). The `if` keeps the reads off
// the boundary faces.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 14, kSteps = 6;
} // namespace

S2P_KERNEL S2P_TILES(4) void heat_3d(int steps, s2p::field<3, double>& A,
                                     s2p::field<3, double>& B) {
  auto map = s2p::resource_map<3>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  const auto n = A.extent()[0];
  for (int t = 1; t <= steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<3> i) {
      if (i[0] < 1 || i[0] >= n - 1 || i[1] < 1 || i[1] >= n - 1 || i[2] < 1 || i[2] >= n - 1)
        return;
      Bd[i] = 0.125 * (Ad[{i[0] + 1, i[1], i[2]}] - 2.0 * Ad[i] + Ad[{i[0] - 1, i[1], i[2]}]) +
              0.125 * (Ad[{i[0], i[1] + 1, i[2]}] - 2.0 * Ad[i] + Ad[{i[0], i[1] - 1, i[2]}]) +
              0.125 * (Ad[{i[0], i[1], i[2] + 1}] - 2.0 * Ad[i] + Ad[{i[0], i[1], i[2] - 1}]) +
              Ad[i];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<3> i) {
      if (i[0] < 1 || i[0] >= n - 1 || i[1] < 1 || i[1] >= n - 1 || i[2] < 1 || i[2] >= n - 1)
        return;
      Ad[i] = 0.125 * (Bd[{i[0] + 1, i[1], i[2]}] - 2.0 * Bd[i] + Bd[{i[0] - 1, i[1], i[2]}]) +
              0.125 * (Bd[{i[0], i[1] + 1, i[2]}] - 2.0 * Bd[i] + Bd[{i[0], i[1] - 1, i[2]}]) +
              0.125 * (Bd[{i[0], i[1], i[2] + 1}] - 2.0 * Bd[i] + Bd[{i[0], i[1], i[2] - 1}]) +
              Bd[i];
    });
  }
}

int main() {
  std::vector<double> a(kN * kN * kN), b(kN * kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      for (int k = 0; k < kN; ++k)
        a[(i * kN + j) * kN + k] = b[(i * kN + j) * kN + k] =
            static_cast<double>(i + j + (kN - k)) * 10 / kN;
  s2p::field<3, double> A(a.data(), {kN, kN, kN}), B(b.data(), {kN, kN, kN});
  heat_3d(kSteps, A, B);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
