// Body loops bounded by the forall's index, read as the union of their ranges: a triangle's
// `for (k = 0; k <= i[0]; ++k)` (a lower-triangular product over a vector, lifted to the
// matrix's rank), a range from the index to a kernel value, one between two coordinates of the
// index, a stride-2 one, one that is empty on the first rows (the tile that owns only them is
// given nothing through it), ranges bounded by an outer body loop's variable (the union over
// its values: `for (j = 0; j <= i[0]; ++j) for (k = 0; k < j; ++k)` reads the rows below i0),
// and a forall that reads the rows of its own output that the range keeps below the rows its
// `if` lets it write: independent only because the range is read (the whole axis would be a
// dependence, and seq2par refused it before). Block tasks read a triangle of blocks the same
// way (for (k = 0; k <= b[0]; ++k) At({k, b[1]})), and a window of the index over a loop whose
// bounds are kernel values (`xd[{i[0] + k}]`, k < taps) reads the window, empty (taps 0) or
// reaching past the field's end (the body's `if` keeps it inside).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kRows = 20, kCols = 12, kHalf = 10;
constexpr int kEdge = 24, kBlock = 6;
} // namespace

S2P_KERNEL S2P_TILES(4) void triangles(int last, const s2p::field<2, double>& L,
                                       const s2p::field<1, double>& x, s2p::field<1, double>& y,
                                       s2p::field<2, double>& C, s2p::field<2, double>& D) {
  auto Ld = s2p::agile(L, s2p::resource_map<2>::block_cyclic(L.extent(), {1, kRows}, 4));
  auto xd = s2p::agile(x, s2p::resource_map<1>::block(x.extent(), 4));
  auto yd = s2p::agile(y, s2p::resource_map<1>::block_cyclic(y.extent(), {1}, 4));
  auto Cd = s2p::agile(C, s2p::resource_map<2>::block_cyclic(C.extent(), {1, kCols}, 4));
  auto Dd = s2p::agile(D, s2p::resource_map<2>::block(D.extent(), 4));
  // y = L x over L's lower triangle; row 0 alone reads x[0].
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k <= i[0]; ++k)
      sum += Ld[{i[0], k}] * xd[{k}];
    yd[i] = sum;
  });
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    double sum = 0.0;
    for (int k = i[0]; k < last; ++k) // from the index to a kernel value: empty below `last`
      sum += Ld[{k, i[1]}];
    for (int k = i[1]; k <= i[0]; ++k) // between two coordinates of the index
      sum -= 0.5 * Ld[{i[0], k}];
    for (int k = 1; k < i[0]; k += 2) // stride 2, empty on rows 0 and 1
      sum += 0.25 * xd[{k}];
    for (int k = 0; k <= i[1]; ++k) // a vector in a rank-2 forall: lifted
      sum += 0.125 * yd[{k}];
    for (int j = 0; j <= i[0]; ++j) // bounded by an outer body loop's variable: rows below i0
      for (int k = 0; k < j; ++k)
        sum -= 0.0625 * Ld[{k, i[1]}];
    for (int j = 2; j < 6; ++j) // from an outer loop's first value up to a kernel value
      for (int k = j; k < last; k += 3)
        sum += 0.03125 * xd[{k}];
    Cd[i] = 0.5 * Cd[i] + sum;
  });
  // Rows kHalf.. of D from the rows above them: k < i[0] - kHalf < kHalf.
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= kHalf && i[0] < 2 * kHalf) {
      double sum = Cd[i];
      for (int k = 0; k < i[0] - kHalf; ++k)
        sum += 0.5 * Dd[{k, i[1]}];
      Dd[i] = sum;
    }
  });
}

// R's block (b0, b1) from A's blocks (k, b1), k <= b0: the tile with block rows 0 and 3 is
// given A's block rows 1 and 2, the one with row 1 row 0, the one with row 2 rows 0 and 1
// (5,760 bytes on sim; the whole axis moved 9,216).
S2P_KERNEL S2P_TILES(3) void block_triangle(s2p::field<2, double>& R,
                                            const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(R.extent(), {kBlock, kEdge}, 3)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Rd = s2p::agile(R, map);
  auto Ad = s2p::agile(A, map);
  auto Rt = s2p::tiles(Rd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Rt.blocks(), [&](s2p::index<2> b) {
    const auto r = Rt(b);
    for (int k = 0; k <= b[0]; ++k) {
      const auto a = At({k, b[1]});
      s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] += a[j] * static_cast<double>(k + 1); });
    }
  });
}

// A convolution whose taps are a parameter, and a centred window of radius `lead`.
S2P_KERNEL S2P_TILES(4) void convolve(int taps, int lead, const s2p::field<1, double>& w,
                                      const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto wd = s2p::agile(w, s2p::resource_map<1>::block(w.extent(), 4));
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const int n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < taps; ++k)
      if (i[0] + k < n)
        sum += wd[{k}] * xd[{i[0] + k}];
    for (int k = -lead; k <= lead; ++k)
      if (i[0] + k >= 0 && i[0] + k < n)
        sum += 0.5 * xd[{i[0] + k}];
    yd[i] = sum;
  });
}

int main() {
  std::vector<double> l(kRows * kRows), x(kRows), y(kRows), c(kRows * kCols), d(kRows * kCols);
  for (int r = 0; r < kRows; ++r) {
    x[static_cast<std::size_t>(r)] = static_cast<double>((r * 5) % 7) / 2.0;
    for (int k = 0; k < kRows; ++k)
      l[static_cast<std::size_t>(r * kRows + k)] = static_cast<double>((r * 7 + k * 3) % 11) / 8.0;
    for (int k = 0; k < kCols; ++k) {
      const auto at = static_cast<std::size_t>(r * kCols + k);
      c[at] = static_cast<double>((3 * r + k) % 5);
      d[at] = static_cast<double>((r * k) % 9) - 4.0;
    }
  }
  s2p::field<2, double> L(l.data(), {kRows, kRows}), C(c.data(), {kRows, kCols}),
      D(d.data(), {kRows, kCols});
  s2p::field<1, double> X(x.data(), {kRows}), Y(y.data(), {kRows});
  triangles(13, L, X, Y, C, D);
  sample::print_array("y", y.data(), y.size());
  sample::print_array("c", c.data(), c.size());
  sample::print_array("d", d.data(), d.size());
  std::vector<double> r(kEdge * kEdge), a(kEdge * kEdge);
  for (int k = 0; k < kEdge * kEdge; ++k) {
    r[static_cast<std::size_t>(k)] = static_cast<double>(k % 5);
    a[static_cast<std::size_t>(k)] = static_cast<double>((k * 7) % 11) / 4.0;
  }
  s2p::field<2, double> R(r.data(), {kEdge, kEdge}), Ablocks(a.data(), {kEdge, kEdge});
  block_triangle(R, Ablocks);
  sample::print_array("r", r.data(), r.size());
  std::vector<double> taps(8), signal(40), filtered(40);
  for (int k = 0; k < 8; ++k)
    taps[static_cast<std::size_t>(k)] = 1.0 + k;
  for (int k = 0; k < 40; ++k)
    signal[static_cast<std::size_t>(k)] = (k * 7) % 5;
  s2p::field<1, double> W(taps.data(), {8}), S(signal.data(), {40}), F(filtered.data(), {40});
  // (Not std::pair{3, 2}: its deduction guide leaks a diagnostic string inside Clang 19,
  // which the AddressSanitizer build of seq2par reports.)
  constexpr int kCounts[] = {3, 0, 8}, kLeads[] = {2, 0, 12};
  for (int run = 0; run < 3; ++run) {
    convolve(kCounts[run], kLeads[run], W, S, F);
    sample::print_array("filtered", filtered.data(), filtered.size());
  }
  return 0;
}
