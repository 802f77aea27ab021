// Windows that subtract a body loop's variable from the index, over loops whose bounds are
// values of the kernel: a causal filter `yd[i] = sum w[k] * x[i - k]` over k < taps (the window
// i0 - taps + 1 .. i0; empty with taps 0, past the field's start near it, which the body's `if`
// keeps inside), a window between two kernel values that may be negative (k from -ahead to
// behind: i0 - behind .. i0 + ahead), an inclusive bound with a constant shift
// (`xd[{i[0] + 2 - k}]`, k <= depth), and a matrix forall reading rows above its own through
// `Ad[{i[0] - k, i[1]}]` beside a read at a fixed column. The launch plans each window from the
// kernel's values (it read the whole axis before), the relations bound it, and a forall that
// reads rows of its own output that the window keeps below the rows its `if` writes is
// accepted.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kLength = 40, kRows = 24, kCols = 6;
} // namespace

S2P_KERNEL S2P_TILES(4) void causal(int taps, int behind, int ahead, int depth,
                                    const s2p::field<1, double>& w,
                                    const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto wd = s2p::agile(w, s2p::resource_map<1>::block(w.extent(), 4));
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  const int n = x.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < taps; ++k)
      if (i[0] - k >= 0)
        sum += wd[{k}] * xd[{i[0] - k}];
    for (int k = -ahead; k <= behind; ++k)
      if (i[0] - k >= 0 && i[0] - k < n)
        sum += 0.25 * xd[{i[0] - k}];
    for (int k = 1; k <= depth; ++k)
      if (i[0] + 2 - k >= 0 && i[0] + 2 - k < n)
        sum -= 0.125 * xd[{i[0] + 2 - k}];
    yd[i] = sum;
  });
}

// Rows 12 to 23 accumulate `span` rows of their own output 12 rows above them: rows below 12,
// which no iteration writes, so the forall may read its own output there (the whole axis
// would be a dependence: seq2par refused it before the window was read).
S2P_KERNEL S2P_TILES(3) void rows_above(int span, const s2p::field<2, double>& a,
                                        s2p::field<2, double>& c) {
  auto map = s2p::resource_map<2>::block_cyclic(c.extent(), {1, c.extent()[1]}, 3);
  auto Ad = s2p::agile(a, map);
  auto Cd = s2p::agile(c, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= 12 && i[0] < 24) {
      double sum = Ad[{i[0], 0}];
      for (int k = 0; k < span; ++k)
        if (i[0] - 12 - k >= 0)
          sum += 0.5 * Cd[{i[0] - 12 - k, i[1]}];
      for (int k = 1; k <= span; ++k)
        sum += Ad[{i[0] - k, i[1]}];
      Cd[i] = sum;
    }
  });
}

int main() {
  std::vector<double> taps(8), signal(kLength), filtered(kLength);
  for (int k = 0; k < 8; ++k)
    taps[static_cast<std::size_t>(k)] = 1.0 + k;
  for (int k = 0; k < kLength; ++k)
    signal[static_cast<std::size_t>(k)] = (k * 7) % 5;
  s2p::field<1, double> W(taps.data(), {8}), S(signal.data(), {kLength}),
      F(filtered.data(), {kLength});
  constexpr int kTaps[] = {3, 0, 8}, kBehind[] = {2, 0, 45}, kAhead[] = {1, -1, 3},
                kDepth[] = {2, 0, 5};
  for (int run = 0; run < 3; ++run) {
    causal(kTaps[run], kBehind[run], kAhead[run], kDepth[run], W, S, F);
    sample::print_array("filtered", filtered.data(), filtered.size());
  }
  std::vector<double> a(kRows * kCols), c(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int q = 0; q < kCols; ++q) {
      a[static_cast<std::size_t>(r * kCols + q)] = ((r * 5 + q * 3) % 11) - 4.0;
      c[static_cast<std::size_t>(r * kCols + q)] = ((r + 2 * q) % 7) * 0.5;
    }
  s2p::field<2, double> A(a.data(), {kRows, kCols}), C(c.data(), {kRows, kCols});
  rows_above(4, A, C);
  sample::print_array("c", c.data(), c.size());
  rows_above(12, A, C);
  sample::print_array("c", c.data(), c.size());
  return 0;
}
