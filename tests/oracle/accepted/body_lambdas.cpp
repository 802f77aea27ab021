// Lambdas a forall body defines are read where they are called, as visible helpers are: their
// element reads (through captures or through field parameters, in a loop, under the call's
// `if` or guarded inside them, nested, through another lambda, passed to a helper template
// that calls them) are moved to the tiles like the body's own. And an element bound to a
// reference the body writes through (`auto& acc = Cd[i]`, `double& r = xd[i]`, a helper
// taking `double&`, `std::swap`) counts as written there: the output accumulated through a
// reference, a second field written at the index (a further output). seq2par refused the
// lambdas' reads before ("the index of agile field ... must be ..."), and took the writes
// through references for reads: the sim and mpi backends then left those fields as they were.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <utility>
#include <vector>

namespace {
constexpr int kRows = 24, kCols = 10;
} // namespace

// A helper template that calls the lambda it is given (its body is read with the lambda's).
template <class F> double sum_over(const F& f, long count) {
  double sum = 0.0;
  for (long k = 0; k < count; ++k)
    sum += f(k);
  return sum;
}

void scale_in_place(double& value, double factor) { value *= factor; }

S2P_KERNEL S2P_TILES(4) void lambda_reads(const s2p::field<2, double>& a,
                                          const s2p::field<1, double>& x, s2p::field<1, double>& y,
                                          s2p::field<1, double>& z) {
  auto rows = s2p::resource_map<2>::block(a.extent(), 4);
  auto vector = s2p::resource_map<1>::block(x.extent(), 4);
  auto out = s2p::resource_map<1>::block(y.extent(), 4);
  auto Ad = s2p::agile(a, rows);
  auto xd = s2p::agile(x, vector);
  auto yd = s2p::agile(y, out);
  auto zd = s2p::agile(z, out);
  const long n = a.extent()[0], m = a.extent()[1];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto by_copy = [=](long c) { return Ad[{i[0], c}]; };
    auto element = [](const auto& f, auto at) { return f[{at}]; };
    auto row_sum = [&](long r) {
      double sum = 0.0;
      for (long k = 0; k < m; ++k)
        sum += Ad[{r, k}];
      return sum;
    };
    auto twice = [&](long c) {
      auto inner = [&](long d) { return xd[{d}]; };
      return 2.0 * inner(c);
    };
    double sum = by_copy(0) + element(xd, 3L) + row_sum(i[0]);
    sum += sum_over([&](long k) { return Ad[{i[0], k}] * xd[{k}]; }, m);
    if (i[0] + 1 < n)
      sum += [&] { return Ad[{i[0] + 1, m - 1}]; }();
    if (i[0] > 0 && i[0] <= m)
      sum += twice(i[0] - 1);
    yd[i] = sum;
  });
  // The output of the step before, read through a lambda at the index and the one before it.
  s2p::forall(zd.extent(), [&](s2p::index<1> i) {
    auto previous = [&](long r) { return yd[{r}]; };
    zd[i] = (i[0] > 0 ? previous(i[0] - 1) : 0.0) + previous(i[0]);
  });
}

// The first element of w through a lambda that calls another: every tile but the first is
// given it (the kernel reads w nowhere else, so no earlier step has moved it).
S2P_KERNEL S2P_TILES(4) void lambda_through_lambda(const s2p::field<1, double>& w,
                                                   s2p::field<1, double>& v) {
  auto map = s2p::resource_map<1>::block(v.extent(), 4);
  auto wd = s2p::agile(w, map);
  auto vd = s2p::agile(v, map);
  s2p::forall(vd.extent(), [&](s2p::index<1> i) {
    auto at = [&](long r) { return wd[{r}]; };
    auto half_first = [&] { return 0.5 * at(0); };
    vd[i] = wd[i] + half_first();
  });
}

// Reads inside lambdas guarded there, by tests of the forall's index the lambdas capture (a
// `?:`, an early return): the rows past the ends are never read, so none is planned.
S2P_KERNEL S2P_TILES(4) void lambda_guards(const s2p::field<2, double>& a,
                                           s2p::field<1, double>& y) {
  auto rows = s2p::resource_map<2>::block(a.extent(), 4);
  auto out = s2p::resource_map<1>::block(y.extent(), 4);
  auto Ad = s2p::agile(a, rows);
  auto yd = s2p::agile(y, out);
  const long n = a.extent()[0];
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto below = [&] { return i[0] + 1 < n ? Ad[{i[0] + 1, 0}] : 0.0; };
    auto above = [&](long c) {
      if (i[0] == 0)
        return 0.0;
      return Ad[{i[0] - 1, c}];
    };
    yd[i] = below() + above(2) + [&] { return i[0] + 1 < n ? Ad[{i[0] + 1, 1}] : 0.0; }();
  });
}

S2P_KERNEL S2P_TILES(4) void reference_writes(const s2p::field<2, double>& a,
                                              s2p::field<1, double>& c, s2p::field<1, double>& d,
                                              s2p::field<1, double>& e) {
  auto rows = s2p::resource_map<2>::block(a.extent(), 4);
  auto out = s2p::resource_map<1>::block(c.extent(), 4);
  auto Ad = s2p::agile(a, rows);
  auto Cd = s2p::agile(c, out);
  auto Dd = s2p::agile(d, out);
  auto Ed = s2p::agile(e, out);
  const long m = a.extent()[1];
  // The output accumulated through a reference; a second field written through one.
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) {
    auto& acc = Cd[i];
    acc = 0.0;
    for (long k = 0; k < m; ++k)
      acc += Ad[{i[0], k}];
    double& other = Dd[i];
    other = acc * 0.5 + other;
  });
  // A helper that writes the element it is given; then two fields swapped at the index.
  s2p::forall(Cd.extent(), [&](s2p::index<1> i) {
    Cd[i] += 1.0;
    scale_in_place(Ed[i], 3.0);
  });
  s2p::forall(Dd.extent(), [&](s2p::index<1> i) { std::swap(Dd[i], Ed[i]); });
}

int main() {
  std::vector<double> a(kRows * kCols), x(kCols), y(kRows), z(kRows);
  for (int k = 0; k < kRows * kCols; ++k)
    a[static_cast<std::size_t>(k)] = static_cast<double>((k * 7) % 13) * 0.25 - 1.0;
  for (int k = 0; k < kCols; ++k)
    x[static_cast<std::size_t>(k)] = static_cast<double>(k) * 0.5 - 2.0;
  const s2p::field<2, double> A(a.data(), {kRows, kCols});
  s2p::field<1, double> X(x.data(), {kCols}), Y(y.data(), {kRows}), Z(z.data(), {kRows});
  lambda_reads(A, X, Y, Z);
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());
  lambda_guards(A, Y);
  sample::print_array("y", y.data(), y.size());
  lambda_through_lambda(s2p::field<1, double>(y.data(), {kRows}), Z);
  sample::print_array("z", z.data(), z.size());
  std::vector<double> c(kRows), d(kRows), e(kRows);
  for (int k = 0; k < kRows; ++k) {
    d[static_cast<std::size_t>(k)] = static_cast<double>(k % 5);
    e[static_cast<std::size_t>(k)] = static_cast<double>(k % 3) - 1.0;
  }
  s2p::field<1, double> C(c.data(), {kRows}), D(d.data(), {kRows}), E(e.data(), {kRows});
  reference_writes(A, C, D, E);
  sample::print_array("c", c.data(), c.size());
  sample::print_array("d", d.data(), d.size());
  sample::print_array("e", e.data(), e.size());
  return 0;
}
