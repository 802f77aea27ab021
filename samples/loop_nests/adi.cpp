// adi: alternating-direction implicit sweeps of a 2-D heat equation. Each time step solves a
// tridiagonal system along every column of the grid (into v), then along every row (back into
// u), each by the Thomas algorithm: a forward sweep of coefficients p and q, then a backward
// substitution. The lines of one sweep are independent, so each sweep is a forall over the
// lines: a task per column of v (then per row of u) on the tile that owns that line, which
// reads the three neighbouring lines of the other field. u and v are each seen twice, dealt by
// columns and by rows; p and q are the task's own scratch. The boundary lines keep their
// values: the `if` keeps those tasks from reading a neighbour outside the grid.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 32, kSteps = 4;
} // namespace

S2P_KERNEL S2P_TILES(4) void adi(int steps, s2p::field<2, double>& U, s2p::field<2, double>& V) {
  const int n = U.extent()[0];
  auto by_columns = s2p::resource_map<2>::block_cyclic(U.extent(), {n, 1}, 4);
  auto by_rows = s2p::resource_map<2>::block_cyclic(U.extent(), {1, n}, 4);
  auto Ucd = s2p::agile(U, by_columns);
  auto Urd = s2p::agile(U, by_rows);
  auto Vcd = s2p::agile(V, by_columns);
  auto Vrd = s2p::agile(V, by_rows);
  auto Uc = s2p::tiles(Ucd);
  auto Ur = s2p::tiles(Urd);
  auto Vc = s2p::tiles(Vcd);
  auto Vr = s2p::tiles(Vrd);
  const double dx = 1.0 / n, dt = 1.0 / steps;
  const double mul1 = 2.0 * dt / (dx * dx), mul2 = 1.0 * dt / (dx * dx);
  const double a = -mul1 / 2.0, b = 1.0 + mul1, c = a;
  const double d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  for (int t = 0; t < steps; ++t) {
    // Column sweep: column i of v from columns i - 1, i, i + 1 of u.
    s2p::forall(Vc.blocks(), [&](s2p::index<2> column) {
      if (column[1] >= 1 && column[1] < n - 1) {
        auto v = Vc(column);
        const auto left = Uc({0, column[1] - 1});
        const auto mid = Uc(column);
        const auto right = Uc({0, column[1] + 1});
        double p[kN], q[kN];
        v[{0, 0}] = 1.0;
        p[0] = 0.0;
        q[0] = 1.0;
        for (int j = 1; j < n - 1; ++j) {
          p[j] = -c / (a * p[j - 1] + b);
          q[j] = (-d * left[{j, 0}] + (1.0 + 2.0 * d) * mid[{j, 0}] - f * right[{j, 0}] -
                  a * q[j - 1]) /
                 (a * p[j - 1] + b);
        }
        v[{n - 1, 0}] = 1.0;
        for (int j = n - 2; j >= 1; --j)
          v[{j, 0}] = p[j] * v[{j + 1, 0}] + q[j];
      }
    });
    // Row sweep: row i of u from rows i - 1, i, i + 1 of v.
    s2p::forall(Ur.blocks(), [&](s2p::index<2> row) {
      if (row[0] < 1 || row[0] >= n - 1)
        return;
      auto u = Ur(row);
      const auto above = Vr({row[0] - 1, 0});
      const auto mid = Vr(row);
      const auto below = Vr({row[0] + 1, 0});
      double p[kN], q[kN];
      u[{0, 0}] = 1.0;
      p[0] = 0.0;
      q[0] = 1.0;
      for (int j = 1; j < n - 1; ++j) {
        p[j] = -f / (d * p[j - 1] + e);
        q[j] = (-a * above[{0, j}] + (1.0 + 2.0 * a) * mid[{0, j}] - c * below[{0, j}] -
                d * q[j - 1]) /
               (d * p[j - 1] + e);
      }
      u[{0, n - 1}] = 1.0;
      for (int j = n - 2; j >= 1; --j)
        u[{0, j}] = p[j] * u[{0, j + 1}] + q[j];
    });
  }
}

int main() {
  std::vector<double> u(kN * kN), v(kN * kN, 0.0);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      u[i * kN + j] = static_cast<double>(i + kN - j) / kN;
  s2p::field<2, double> U(u.data(), {kN, kN}), V(v.data(), {kN, kN});
  adi(kSteps, U, V);
  sample::print_array("u", u.data(), u.size());
  return 0;
}
