// Body loops whose bounds are clamped with std::max / std::min or reach a kernel value away
// from the index, read as their range: a box filter over the clamped window
// `for (k = std::max(0L, i[0] - r); k <= std::min(n - 1, i[0] + r); ++k)` (r 0, 2, and wider
// than the field), a band `for (k = i[0] - below; k < i[0] + above; ++k)` guarded inside the
// matrix, the column blocks of a blocked loop around the steps (`k < std::min(kk + width, m)`,
// the launch evaluates it), and a forall reading rows of its own output that a clamped range
// keeps below the rows its `if` writes (accepted: the range is what the dependence check
// reads), and the clamps hoisted into const locals of the body. Each launch plans the clamped
// range (these read the whole axis before).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <algorithm>
#include <vector>

namespace {
constexpr int kLength = 40, kRows = 18, kCols = 10;
} // namespace

S2P_KERNEL S2P_TILES(4) void box_filter(long r, const s2p::field<1, double>& x,
                                        s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const long n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (long k = std::max(0L, i[0] - r); k <= std::min(n - 1, i[0] + r); ++k)
      sum += xd[{k}];
    yd[i] = sum / static_cast<double>(2 * r + 1);
  });
}

S2P_KERNEL S2P_TILES(3) void banded(int below, int above, int width,
                                    const s2p::field<2, double>& a, s2p::field<2, double>& c) {
  auto map = s2p::resource_map<2>::block_cyclic(c.extent(), {1, c.extent()[1]}, 3);
  auto Ad = s2p::agile(a, map);
  auto Cd = s2p::agile(c, map);
  const int rows = a.extent()[0], m = a.extent()[1];
  // The band of rows around each row.
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    double sum = 0.0;
    for (int k = i[0] - below; k < i[0] + above; ++k)
      if (k >= 0 && k < rows)
        sum += Ad[{k, i[1]}];
    Cd[i] = sum;
  });
  // Column blocks of `width`, one launch each: the launch evaluates the clamped bound.
  for (int kk = 0; kk < m; kk += width) {
    s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
      double sum = Cd[i];
      for (int k = kk; k < std::min(kk + width, m); ++k)
        sum += 0.25 * Ad[{i[0], k}];
      Cd[i] = sum;
    });
  }
  // Rows 9 to 17 add the rows of their own output 9 rows above and below that, clamped at 0:
  // rows below 9, which no iteration writes.
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= 9 && i[0] < 18) {
      double sum = Cd[i];
      for (long k = std::max(0L, i[0] - 9 - below); k <= i[0] - 9; ++k)
        sum += 0.5 * Cd[{k, i[1]}];
      Cd[i] = sum;
    }
  });
}

// The clamps hoisted into const locals of the body (the bound their initializers give), a
// bound that is a local the body may change (the whole axis), and a condition that is a
// conjunction (k < i[0] && k < n && k != 5: the index's bound).
S2P_KERNEL S2P_TILES(4) void hoisted(long r, const s2p::field<2, double>& x,
                                     s2p::field<2, double>& y) {
  auto map = s2p::resource_map<2>::block_cyclic(y.extent(), {2, y.extent()[1]}, 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const long n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<2> i) {
    const long lo = std::max(0L, i[0] - r), hi = std::min(n - 1, i[0] + r);
    double sum = 0.0;
    for (long k = lo; k <= hi; ++k)
      sum += xd[{k, i[1]}];
    long first = i[0] - 1;
    if (i[1] == 0)
      first = 0;
    for (long k = std::max(first, 0L); k <= i[0]; ++k)
      sum += 0.5 * xd[{k, i[1]}];
    for (long k = 0; k < i[0] && k < n && k != 5; ++k)
      sum += 0.25 * xd[{k, i[1]}];
    yd[i] = sum;
  });
}

int main() {
  std::vector<double> signal(kLength), filtered(kLength);
  for (int k = 0; k < kLength; ++k)
    signal[static_cast<std::size_t>(k)] = (k * 7) % 5;
  s2p::field<1, double> S(signal.data(), {kLength}), F(filtered.data(), {kLength});
  for (const long r : {0L, 2L, 45L}) {
    box_filter(r, S, F);
    sample::print_array("filtered", filtered.data(), filtered.size());
  }
  std::vector<double> a(kRows * kCols), c(kRows * kCols, 0.0);
  for (int r = 0; r < kRows; ++r)
    for (int q = 0; q < kCols; ++q)
      a[static_cast<std::size_t>(r * kCols + q)] = ((r * 5 + q * 3) % 11) - 4.0;
  s2p::field<2, double> A(a.data(), {kRows, kCols}), C(c.data(), {kRows, kCols});
  constexpr int kBelow[] = {2, 0, 20}, kAbove[] = {1, 3, 20}, kWidth[] = {4, 10, 3};
  for (int run = 0; run < 3; ++run) {
    banded(kBelow[run], kAbove[run], kWidth[run], A, C);
    sample::print_array("c", c.data(), c.size());
  }
  std::vector<double> h(kRows * kCols, 0.0);
  s2p::field<2, double> H(h.data(), {kRows, kCols});
  for (const long r : {0L, 1L, 30L}) {
    hoisted(r, A, H);
    sample::print_array("h", h.data(), h.size());
  }
  return 0;
}
