// Forall bodies that are one `if` on the index, as users write boundary tests. Where the test is
// exactly a box (every conjunct a bound of one index coordinate against a kernel value), a
// forall run in place iterates the box alone and runs the body without the test; every other
// shape keeps the test on every index. Each must compute what the sequential build computes:
// both corners bounded, `!= 0` and `<=`, `==` on the step loop's counter (a pivot row), a lower
// bound only, a block of statements under the test, a box reaching past the extent on both
// sides, an empty box, nested `if`s, and the shapes that are not a box: an `else`, a data test
// beside the bounds, a triangle, an unsigned comparison; and sums written constant first
// (`1 + i[0]`, `-1 + n`). tests/mpi runs it on 2 and 3 ranks.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

S2P_KERNEL S2P_TILES(4) void boxes(int flag, s2p::field<2, double>& A, s2p::field<2, double>& B) {
  const auto n = A.extent()[0];
  const auto m = A.extent()[1];
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= 1 && i[0] < n - 1 && i[1] >= 1 && i[1] < m - 1)
      Bd[i] = 0.25 * (Ad[{i[0] - 1, i[1]}] + Ad[{i[0] + 1, i[1]}] + Ad[{i[0], i[1] - 1}] +
                      Ad[{i[0], i[1] + 1}]);
  });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[0] != 0 && i[1] <= m - 2)
      Ad[i] = Bd[{i[0] - 1, i[1] + 1}] * 0.5 + Bd[i];
  });
  for (int k = 0; k < 3; ++k)
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] == k) {
        const double pivot = Ad[{k, i[1]}];
        Bd[i] = pivot * pivot + 0.125 * k;
      }
    });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[1] > 2)
      Ad[i] += Bd[{i[0], i[1] - 3}];
  });
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= -5 && i[0] < n + 40 && i[1] < 1000)
      Bd[i] = Bd[i] * 0.75 + Ad[i];
  });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[0] > n + 3)
      Ad[i] = -1.0;
  });
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= 1)
      if (i[1] >= 1)
        Bd[i] = Bd[i] - 0.5 * Ad[{i[0] - 1, i[1] - 1}];
  });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[0] < n / 2)
      Ad[i] = Bd[i] + 1.0;
    else
      Ad[i] = Bd[i] - 1.0;
  });
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (i[0] > 0 && flag > 1)
      Bd[i] = Ad[{i[0] - 1, i[1]}];
  });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[1] < i[0] && i[0] < m)
      Ad[i] = Bd[{i[1], i[0]}] * 0.25;
  });
  // Sums written constant first, as users also write them: `1 + i[0]` in a guard and an index,
  // `-1 + n` as a kernel value, a row the body reads beside the one its guard writes.
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (1 + i[0] < n && 0 < i[1] && 1 + i[1] < m)
      Bd[i] = Ad[{1 + i[0], i[1]}] + 0.5 * Ad[{i[0], -1 + i[1]}];
  });
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
    if (i[0] == -1 + n)
      Ad[i] = Ad[{-2 + n, i[1]}] + Bd[i];
  });
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (static_cast<unsigned>(i[1]) > 1u)
      Bd[i] = Ad[i] * 2.0;
  });
}

int main() {
  constexpr int kRows = 13, kColumns = 11;
  std::vector<double> a(kRows * kColumns), b(kRows * kColumns, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>((k * 37) % 101) * 0.01;
  s2p::field<2, double> A(a.data(), {kRows, kColumns}), B(b.data(), {kRows, kColumns});
  boxes(2, A, B);
  sample::print_array("A", a.data(), a.size());
  sample::print_array("B", b.data(), b.size());
  return 0;
}
