// Body loops whose bounds are values of the kernel (a loop variable around the steps, a `const`
// local, a parameter), read as their ranges: trmm's `for (k = row + 1; k < m; ++k)`, a range
// from a constant to a kernel value that is empty in the first row, an inclusive window around
// the row that leaves the field at both ends (the body's `if` keeps it inside), a range past the
// field's end, a stride-2 loop from a parameter, bounds that are views' extents and values the
// relations do not read (`row / 2`, `first + count`: the launch computes them). Tiles receive
// those rows alone (S2P_REPORT's planned bytes), and the last forall reads the rows of its own
// output from `row` down while writing those above it: independent only because the range is
// read (the whole axis would be a dependence).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kRows = 21, kCols = 18;
} // namespace

S2P_KERNEL S2P_TILES(4) void row_ranges(int first, int count, const s2p::field<2, double>& A,
                                        s2p::field<2, double>& B, s2p::field<2, double>& C,
                                        s2p::field<2, double>& D) {
  auto Ad = s2p::agile(A, s2p::resource_map<2>::block(A.extent(), 4));
  auto Bd = s2p::agile(B, s2p::resource_map<2>::block_cyclic(B.extent(), {B.extent()[0], 1}, 4));
  auto Cd = s2p::agile(C, s2p::resource_map<2>::block(C.extent(), 4));
  auto Dd = s2p::agile(D, s2p::resource_map<2>::block_cyclic(D.extent(), {3, 4}, 4));
  const int m = B.extent()[0];
  const int last = m - 1;
  for (int row = 0; row < m; ++row) {
    // Row `row` of B from the rows below it (B's own, untouched by this step) and A's column.
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] == row) {
        for (int k = row + 1; k < m; ++k)
          Bd[i] += 0.25 * Ad[{k, row}] * Bd[{k, i[1]}];
        for (int k = 0; k < row; ++k) // empty in the first row
          Bd[i] -= 0.125 * Ad[{row, k}];
      }
    });
    // Every element of C from a window of A's rows around `row`, clamped by the body.
    s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
      double sum = 0.0;
      for (int k = row - 2; k <= row + 2; ++k)
        if (k >= 0 && k < m)
          sum += Ad[{k, i[1]}];
      for (int k = row; k < last + 4; ++k) // past the field's end
        if (k <= last)
          sum += 0.5 * Bd[{k, i[1]}];
      for (int k = row + 3; k < Ad.extent()[0]; ++k) // up to a view's extent
        sum -= 0.125 * Ad[{k, i[1] + 1}];
      for (int k = row / 2; k <= Cd.extent()[0] - 1; ++k) // `row / 2` as computed
        sum += 0.0625 * Bd[{k, i[1]}];
      Cd[i] = 0.5 * Cd[i] + 0.01 * sum;
    });
  }
  // A stride-2 loop between parameters, and D's rows from `first` down read while the rows
  // above it are written.
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) {
    double sum = 0.0;
    for (int k = first; k < last; k += 2)
      sum += Cd[{k, i[1]}];
    for (int k = first; k < first + count; ++k) // two values: the launch computes the bound
      sum -= 0.5 * Ad[{k, i[1]}];
    if (i[0] < first) {
      for (int k = first; k < m; ++k)
        sum += Dd[{k, i[1]}];
      Dd[i] = sum;
    }
  });
}

int main() {
  std::vector<double> a(kRows * kRows), b(kRows * kCols), c(kRows * kCols), d(kRows * kCols);
  for (int r = 0; r < kRows; ++r) {
    for (int k = 0; k < kRows; ++k)
      a[static_cast<std::size_t>(r * kRows + k)] = static_cast<double>((r * 7 + k * 3) % 11) / 8.0;
    for (int k = 0; k < kCols; ++k) {
      const auto at = static_cast<std::size_t>(r * kCols + k);
      b[at] = static_cast<double>((r + 2 * k) % 13) / 4.0;
      c[at] = static_cast<double>((3 * r + k) % 5);
      d[at] = static_cast<double>((r * k) % 9) - 4.0;
    }
  }
  s2p::field<2, double> A(a.data(), {kRows, kRows}), B(b.data(), {kRows, kCols}),
      C(c.data(), {kRows, kCols}), D(d.data(), {kRows, kCols});
  row_ranges(5, 9, A, B, C, D);
  sample::print_array("b", b.data(), b.size());
  sample::print_array("c", c.data(), c.size());
  sample::print_array("d", d.data(), d.size());
  return 0;
}
