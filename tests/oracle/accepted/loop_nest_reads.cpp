// Reads a loop nest makes that owner-copy must plan exactly or cover: a loop whose bound is
// the index (a triangle), a loop inside a helper over a row the kernel names, a loop variable
// passed to a helper, a fixed row, a row named by a kernel parameter, a vector read in a
// matrix forall and a matrix row in a vector forall. Each must compute what the sequential build computes on every backend.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 24, kM = 20;
} // namespace

// Sum of row r of f over [0, count): the helper's own loop.
template <class F> double row_sum(const F& f, long r, int count) {
  double sum = 0.0;
  for (int k = 0; k < count; ++k)
    sum += f[{r, k}];
  return sum;
}
// Element (r, k): a loop variable of the caller, passed in.
template <class F> double at(const F& f, long r, int k) { return f[{r, k}]; }

S2P_KERNEL S2P_TILES(4) void reads(int last, s2p::field<2, double>& C, s2p::field<1, double>& y,
                                   const s2p::field<2, double>& A, const s2p::field<1, double>& x) {
  auto c_map = s2p::resource_map<2>::block_cyclic(C.extent(), {3, 5}, 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto y_map = s2p::resource_map<1>::cyclic(y.extent(), 4);
  auto x_map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Cd = s2p::agile(C, c_map);
  auto Ad = s2p::agile(A, a_map);
  auto yd = s2p::agile(y, y_map);
  auto xd = s2p::agile(x, x_map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    double lower = 0.0;
    for (int k = 0; k < i[0] && k < Ad.extent()[1]; ++k) // a triangle of row i[0]
      lower += at(Ad, i[0], k);
    Cd[i] = lower + row_sum(Ad, last - 1, 3) * 0.5 + Ad[{0, i[1]}] +
            Ad[{last, i[1]}] * xd[{i[1]}];
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    yd[i] = 0.0;
    for (int k = 0; k < Cd.extent()[1]; ++k)
      yd[i] += Cd[{i[0], k}] * xd[{k}];
  });
}

int main() {
  std::vector<double> c(kN * kM), y(kN), a(kN * kM), x(kM);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(static_cast<int>(k * 7 % 29) - 14) * 0.125;
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k % 5) - 2.0;
  s2p::field<2, double> C(c.data(), {kN, kM});
  s2p::field<1, double> Y(y.data(), {kN});
  reads(kN - 1, C, Y, s2p::field<2, double>(a.data(), {kN, kM}),
        s2p::field<1, double>(x.data(), {kM}));
  sample::print_array("C", c.data(), c.size());
  sample::print_array("y", y.data(), y.size());
  return 0;
}
