// Reads at the index plus (or minus) a value of the kernel, as users write them: a lag that is
// a kernel parameter (`Xd[{i[0] + lag}]`, guarded by `if (i[0] + lag < n)` or its `else`; a
// delay line `Xd[{i[0] - lag}]`), the time loop's variable as a moving offset (`Ad[{i[0],
// i[1] + t}]`, and subtracted), a shift reached through a helper, and a reflection about a
// kernel value (`m - 1 - i[1]`). The launch adds the value to
// each read's coordinate (no schedule template: only the running kernel knows it), the guard's
// bound moves it to the other side, and every backend computes what the sequential build
// computes. (In place, a shifted read is a dependence: tests/bad_input/cases/
// loop_nest_shift_in_place.cpp.)
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kLength = 44, kRows = 10, kCols = 16;
} // namespace

template <class F> double ahead(const F& f, long k) { return f[{k + 1}]; }

S2P_KERNEL S2P_TILES(4) void lagged(int lag, const s2p::field<1, double>& x,
                                    s2p::field<1, double>& y, s2p::field<1, double>& z) {
  const long n = x.extent()[0];
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag < n)
      Yd[i] = Xd[{i[0] + lag}] - Xd[i];
    else
      Yd[i] = Xd[i];
  });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag + 1 >= n)
      return;
    Zd[i] = ahead(Xd, i[0] + lag) + Yd[{i[0] + 1}];
  });
}

S2P_KERNEL S2P_TILES(3) void drift(int steps, s2p::field<2, double>& A, s2p::field<2, double>& B) {
  const int m = A.extent()[1];
  auto map = s2p::resource_map<2>::block_block(A.extent(), {4, 4}, 3);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[1] + t < m)
        Bd[i] = 0.5 * (Ad[{i[0], i[1] + t}] + Ad[i]);
      else
        Bd[i] = Ad[i];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) { Ad[i] = Bd[{i[0], m - 1 - i[1]}] + t; });
  }
}

// A delay line and a trailing window: the lag and the time loop's variable subtracted.
S2P_KERNEL S2P_TILES(4) void delayed(int lag, const s2p::field<1, double>& x,
                                     s2p::field<1, double>& y, const s2p::field<2, double>& A,
                                     s2p::field<2, double>& B) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto map2 = s2p::resource_map<2>::block(A.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Ad = s2p::agile(A, map2);
  auto Bd = s2p::agile(B, map2);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] - lag >= 0)
      Yd[i] = Xd[{i[0] - lag}] + Xd[i];
    else
      Yd[i] = Xd[i];
  });
  for (int t = 1; t < 4; ++t)
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[1] >= t && i[0] - lag + 2 >= 0)
        Bd[i] = Ad[{i[0] - lag + 2, i[1] - t}] * 0.5 + Bd[i];
    });
}

int main() {
  std::vector<double> x(kLength), y(kLength, 0.0), z(kLength, -1.0);
  for (int k = 0; k < kLength; ++k)
    x[k] = static_cast<double>((k * 7) % 17) - 8.0;
  s2p::field<1, double> Y(y.data(), {kLength}), Z(z.data(), {kLength});
  lagged(5, s2p::field<1, double>(x.data(), {kLength}), Y, Z);
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());

  std::vector<double> a(kRows * kCols), b(kRows * kCols, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 13) * 0.25;
  s2p::field<2, double> A(a.data(), {kRows, kCols}), B(b.data(), {kRows, kCols});
  drift(4, A, B);
  sample::print_array("A", a.data(), a.size());
  sample::print_array("B", b.data(), b.size());

  std::vector<double> delayed_y(kLength, 0.0), delayed_b(kRows * kCols, 1.0);
  s2p::field<1, double> DY(delayed_y.data(), {kLength});
  s2p::field<2, double> DB(delayed_b.data(), {kRows, kCols});
  delayed(3, s2p::field<1, double>(x.data(), {kLength}), DY,
          s2p::field<2, double>(a.data(), {kRows, kCols}), DB);
  sample::print_array("delayed_y", delayed_y.data(), delayed_y.size());
  sample::print_array("delayed_B", delayed_b.data(), delayed_b.size());
  return 0;
}
