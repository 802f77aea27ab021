// Reads that an `if` on the index keeps inside the field, written the ways a user would:
// block tasks whose boundary blocks read no neighbour (`if (b[1] >= 1) ... At({b[0], b[1] -
// 1})`, an early `return`, the `else` of a test, a task over a field seen by rows and by
// columns inside a time loop), and element reads held in a declaration (`const double left =
// Xd[{i[0] - 1}];`) under such an `if`. Each is planned only where its guard lets it run, so
// no tile is given a block or element outside the field. Results must equal the sequential
// build on every backend.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kEdge = 12; // fields are kEdge x kEdge
constexpr int kLength = 30;
} // namespace

// Each column of Y from the columns beside it in X (none beside the first and the last),
// then each row of X from the rows of Y around it: a field dealt by columns and by rows.
S2P_KERNEL S2P_TILES(3) void line_sweeps(int steps, s2p::field<2, double>& X,
                                         s2p::field<2, double>& Y) {
  const int n = X.extent()[0];
  auto by_columns = s2p::resource_map<2>::block_cyclic(X.extent(), {n, 1}, 3);
  auto by_rows = s2p::resource_map<2>::block_cyclic(X.extent(), {1, n}, 3);
  auto Xcd = s2p::agile(X, by_columns);
  auto Xrd = s2p::agile(X, by_rows);
  auto Ycd = s2p::agile(Y, by_columns);
  auto Yrd = s2p::agile(Y, by_rows);
  auto Xc = s2p::tiles(Xcd);
  auto Xr = s2p::tiles(Xrd);
  auto Yc = s2p::tiles(Ycd);
  auto Yr = s2p::tiles(Yrd);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Yc.blocks(), [&](s2p::index<2> b) {
      auto y = Yc(b);
      if (b[1] >= 1 && b[1] < n - 1) {
        const auto left = Xc({0, b[1] - 1});
        const auto right = Xc({0, b[1] + 1});
        double carry = 0.0;
        for (int j = 0; j < n; ++j) {
          carry = 0.5 * carry + left[{j, 0}] - right[{j, 0}];
          y[{j, 0}] = carry;
        }
      } else {
        const auto own = Xc(b);
        for (int j = n - 1; j >= 0; --j)
          y[{j, 0}] = 2.0 * own[{j, 0}] + (j + 1 < n ? y[{j + 1, 0}] : 0.0);
      }
    });
    s2p::forall(Xr.blocks(), [&](s2p::index<2> b) {
      if (b[0] == 0 || b[0] > n - 2)
        return;
      auto x = Xr(b);
      const auto above = Yr({b[0] - 1, 0});
      const auto below = Yr({b[0] + 1, 0});
      for (int j = 1; j < n; ++j)
        x[{0, j}] = 0.25 * (x[{0, j - 1}] + above[{0, j}] - below[{0, j}]);
    });
  }
}

// A two-sided difference whose reads sit in declarations under the `if` that keeps them in
// the field, and a one-sided one after an early return.
S2P_KERNEL S2P_TILES(4) void differences(const s2p::field<1, double>& S, s2p::field<1, double>& D,
                                         s2p::field<1, double>& E) {
  auto map = s2p::resource_map<1>::block(S.extent(), 4);
  auto Sd = s2p::agile(S, map);
  auto Dd = s2p::agile(D, map);
  auto Ed = s2p::agile(E, map);
  const long n = S.extent()[0];
  s2p::forall(Dd.extent(), [&](s2p::index<1> i) {
    if (i[0] > 0 && i[0] < n - 1) {
      const double left = Sd[{i[0] - 1}];
      const double right = Sd[{i[0] + 1}];
      Dd[i] = right - left;
    }
  });
  s2p::forall(Ed.extent(), [&](s2p::index<1> i) {
    if (i[0] < 2)
      return;
    const double before = Sd[{i[0] - 2}];
    Ed[i] = Sd[i] - before;
  });
}

int main() {
  std::vector<double> x(kEdge * kEdge), y(kEdge * kEdge, 0.0);
  for (int r = 0; r < kEdge; ++r)
    for (int q = 0; q < kEdge; ++q)
      x[static_cast<std::size_t>(r * kEdge + q)] = ((r * 5 + q * 3) % 11) - 4.0;
  s2p::field<2, double> X(x.data(), {kEdge, kEdge}), Y(y.data(), {kEdge, kEdge});
  line_sweeps(3, X, Y);
  sample::print_array("x", x.data(), x.size());
  sample::print_array("y", y.data(), y.size());
  std::vector<double> s(kLength), d(kLength, -1.0), e(kLength, -1.0);
  for (int k = 0; k < kLength; ++k)
    s[static_cast<std::size_t>(k)] = (k * 7) % 5 + 0.25 * k * k;
  s2p::field<1, double> S(s.data(), {kLength}), D(d.data(), {kLength}), E(e.data(), {kLength});
  differences(S, D, E);
  sample::print_array("d", d.data(), d.size());
  sample::print_array("e", e.data(), e.size());
  return 0;
}
