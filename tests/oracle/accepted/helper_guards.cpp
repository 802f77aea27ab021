// The `if`s and `?:` inside a helper (or a lambda of the body) that test its parameters are
// read as the guards they are at the call: `r + 1 < n ? f[{r + 1}] : 0` for `r` given i[0] and
// `n` a value of the kernel plans no element past the end, as the same test in the body does.
// seq2par read only the call's own guard there, so the launch planned the read at i[0] + 1 for
// the last index and every backend refused it ("forall reads 'xd' outside its extent") where
// the sequential build runs.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kLength = 40, kCols = 6;
} // namespace

template <class F> double below(const F& f, long r, long n) {
  return r + 1 < n ? f[{r + 1}] : 0.0;
}
template <class F> double above(const F& f, long r) {
  if (r <= 0)
    return 0.0;
  return f[{r - 1}];
}
template <class F> double cell(const F& f, long r, long c, long rows) {
  if (!(r >= 0 && r < rows))
    return 0.0;
  return f[{r, c}];
}

S2P_KERNEL S2P_TILES(4) void neighbours(const s2p::field<2, double>& a,
                                        const s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto rows_map = s2p::resource_map<2>::block(a.extent(), 4);
  auto vector = s2p::resource_map<1>::block(x.extent(), 4);
  auto Ad = s2p::agile(a, rows_map);
  auto xd = s2p::agile(x, vector);
  auto yd = s2p::agile(y, vector);
  const long n = x.extent()[0];
  const long rows = a.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto before = [&](long r) { return r > 0 ? xd[{r - 1}] : 0.0; };
    yd[i] = below(xd, i[0], n) + above(xd, i[0]) + cell(Ad, i[0] + 2, 1, rows) +
            cell(Ad, i[0] - 3, 0, rows) + before(i[0] - 1);
  });
}

int main() {
  std::vector<double> a(kLength * kCols), x(kLength), y(kLength);
  for (int k = 0; k < kLength * kCols; ++k)
    a[static_cast<std::size_t>(k)] = static_cast<double>((k * 7) % 13) * 0.1;
  for (int k = 0; k < kLength; ++k)
    x[static_cast<std::size_t>(k)] = static_cast<double>(k) * 0.5 - 3.0;
  const s2p::field<2, double> A(a.data(), {kLength, kCols});
  const s2p::field<1, double> X(x.data(), {kLength});
  s2p::field<1, double> Y(y.data(), {kLength});
  neighbours(A, X, Y);
  sample::print_array("y", y.data(), y.size());
  return 0;
}
