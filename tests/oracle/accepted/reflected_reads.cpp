// Reads at a reflected index, written as users write them: `kLength - 1 - i[0]` (a reversed
// vector), `-i[1] + 12` (a mirrored matrix), a reflected stride (`39 - 2 * i[0]`, every other
// element from the end), one reached through a helper, and a reflection guarded by `!=` at the
// range's edge. Each coordinate is the index times a negative constant plus a constant; the
// owner-copy plan gives each tile the mirrored blocks, and every backend must compute what
// the sequential build computes. (An in-place reflection is a dependence:
// tests/bad_input/cases/loop_nest_reflection_in_place.cpp.)
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kLength = 40, kRows = 9, kCols = 13;
} // namespace

template <class F> double mirrored(const F& f, long row, long column) {
  return f[{row, kCols - 1 - column}];
}

S2P_KERNEL S2P_TILES(4) void reverse(const s2p::field<1, double>& x, s2p::field<1, double>& y,
                                     s2p::field<1, double>& half) {
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto half_map = s2p::resource_map<1>::block(half.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Hd = s2p::agile(half, half_map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    Yd[i] = Xd[{kLength - 1 - i[0]}] - Xd[i];
  });
  s2p::forall(Hd.extent(), [&](s2p::index<1> i) { Hd[i] = Xd[{39 - 2 * i[0]}]; });
}

S2P_KERNEL S2P_TILES(3) void mirror(const s2p::field<2, double>& A, s2p::field<2, double>& B,
                                    s2p::field<2, double>& C) {
  auto map = s2p::resource_map<2>::block_block(A.extent(), {3, 5}, 3);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Cd = s2p::agile(C, map);
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    Bd[i] = Ad[{i[0], -i[1] + 12}] + mirrored(Ad, i[0], i[1]);
  });
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[0] != kRows - 1)
      Cd[i] = Bd[{i[0] + 1, 12 - i[1]}];
    else
      Cd[i] = -Bd[i];
  });
}

int main() {
  std::vector<double> x(kLength), y(kLength, 0.0), half(kLength / 2, 0.0);
  for (int k = 0; k < kLength; ++k)
    x[k] = static_cast<double>((k * 5) % 13) - 6.0;
  s2p::field<1, double> Y(y.data(), {kLength}), H(half.data(), {kLength / 2});
  reverse(s2p::field<1, double>(x.data(), {kLength}), Y, H);
  sample::print_array("y", y.data(), y.size());
  sample::print_array("half", half.data(), half.size());

  std::vector<double> a(kRows * kCols), b(kRows * kCols, 0.0), c(kRows * kCols, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 19) * 0.5;
  s2p::field<2, double> B(b.data(), {kRows, kCols}), C(c.data(), {kRows, kCols});
  mirror(s2p::field<2, double>(a.data(), {kRows, kCols}), B, C);
  sample::print_array("B", b.data(), b.size());
  sample::print_array("C", c.data(), c.size());
  return 0;
}
