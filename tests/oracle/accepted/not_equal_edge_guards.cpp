// Boundaries written with `!=` and `==`, as users write them: a conjunction of `i[k] != edge`
// around a stencil's reads (its `else` copying the boundary), an early `return` on a
// disjunction of `i[k] == edge`, a 1-d difference bounded by constants (so its schedule
// template is planned with the bounds, and must be the schedule the program runs), a vector
// read from a matrix forall (a lifted launch) under `i[1] != m - 1`, and block tasks whose last
// block reads no neighbour (`if (b[0] != rows - 1)`). Where such a value is an edge of the
// index range the launch bounds the reads there, as `i[k] < n - 1` would; no tile is given an
// element outside a field, and every backend computes what the sequential build computes.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kRows = 19, kCols = 13, kLength = 40;
} // namespace

S2P_KERNEL S2P_TILES(4) void relax(int steps, s2p::field<2, double>& A, s2p::field<2, double>& B,
                                   const s2p::field<1, double>& v) {
  const auto n = A.extent()[0];
  const auto m = A.extent()[1];
  auto map = s2p::resource_map<2>::block_block(A.extent(), {5, 4}, 4);
  auto vmap = s2p::resource_map<1>::block(v.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto vd = s2p::agile(v, vmap);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] != 0 && i[0] != n - 1 && i[1] != 0 && i[1] != m - 1)
        Bd[i] = 0.25 * (Ad[{i[0] - 1, i[1]}] + Ad[{i[0] + 1, i[1]}] + Ad[{i[0], i[1] - 1}] +
                        Ad[{i[0], i[1] + 1}]);
      else
        Bd[i] = Ad[i];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] == 0 || i[0] == n - 1 || i[1] == m - 1) {
        Ad[i] = Bd[i];
        return;
      }
      Ad[i] = 0.5 * (Bd[{i[0] + 1, i[1] + 1}] + Bd[{i[0] - 1, i[1]}]) + vd[{i[1] + 1}];
    });
  }
}

S2P_KERNEL S2P_TILES(4) void difference(const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] != 0 && i[0] != kLength - 1)
      Yd[i] = Xd[{i[0] + 1}] - Xd[{i[0] - 1}];
    else
      Yd[i] = 0.0;
  });
}

// Each row block of Y from its own block of X and the next one, but the last, which has none.
S2P_KERNEL S2P_TILES(3) void next_rows(const s2p::field<2, double>& X, s2p::field<2, double>& Y) {
  const int rows = X.extent()[0];
  auto by_rows = s2p::resource_map<2>::block_cyclic(X.extent(), {1, X.extent()[1]}, 3);
  auto Xd = s2p::agile(X, by_rows);
  auto Yd = s2p::agile(Y, by_rows);
  auto Xt = s2p::tiles(Xd);
  auto Yt = s2p::tiles(Yd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    auto y = Yt(b);
    const auto own = Xt(b);
    if (b[0] != rows - 1) {
      const auto next = Xt({b[0] + 1, 0});
      for (int j = 0; j < y.extent()[1]; ++j)
        y[{0, j}] = own[{0, j}] - next[{0, j}];
    } else {
      for (int j = 0; j < y.extent()[1]; ++j)
        y[{0, j}] = own[{0, j}];
    }
  });
}

int main() {
  std::vector<double> a(kRows * kCols), b(kRows * kCols, 0.0), v(kCols + 1);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 17) * 0.125 - 1.0;
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<double>(k % 5) * 0.5;
  s2p::field<2, double> A(a.data(), {kRows, kCols}), B(b.data(), {kRows, kCols});
  relax(3, A, B, s2p::field<1, double>(v.data(), {kCols + 1}));
  sample::print_array("A", a.data(), a.size());
  sample::print_array("B", b.data(), b.size());

  std::vector<double> x(kLength), y(kLength, -1.0);
  for (int k = 0; k < kLength; ++k)
    x[k] = static_cast<double>((k * 7) % 11);
  s2p::field<1, double> Y(y.data(), {kLength});
  difference(s2p::field<1, double>(x.data(), {kLength}), Y);
  sample::print_array("y", y.data(), y.size());

  std::vector<double> rows_x(kRows * kCols), rows_y(kRows * kCols, 0.0);
  for (std::size_t k = 0; k < rows_x.size(); ++k)
    rows_x[k] = static_cast<double>(k % 23);
  s2p::field<2, double> RY(rows_y.data(), {kRows, kCols});
  next_rows(s2p::field<2, double>(rows_x.data(), {kRows, kCols}), RY);
  sample::print_array("rows", rows_y.data(), rows_y.size());
  return 0;
}
