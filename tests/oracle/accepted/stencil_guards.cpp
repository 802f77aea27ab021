// Stencils whose boundaries are `if`s, as users write them: a conjunction around the reads, an
// else branch that reads elsewhere, an early return on a disjunction, a bound the kernel
// computes, a guard only on the first axis of a 2-D read, and a read inside a helper called
// under the guard. Owner-copy plans each read for the indices its guard lets through; every
// backend must compute what the sequential build computes (it once aborted: a read of
// element -1 planned from the index alone).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 64, kRows = 18, kCols = 14;
} // namespace

template <class F> float left(const F& f, long k) { return f[{k - 1}]; }

S2P_KERNEL S2P_TILES(4) void smooth(s2p::field<1, float>& y, const s2p::field<1, float>& x,
                                    s2p::field<2, double>& B, const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto map2 = s2p::resource_map<2>::block_block(A.extent(), {3, 7}, 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Ad = s2p::agile(A, map2);
  auto Bd = s2p::agile(B, map2);
  const long last = x.extent()[0] - 1;
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] > 0 && i[0] < last)
      Yd[i] = (left(Xd, i[0]) + Xd[{i[0] + 1}]) * 0.5f;
    else if (i[0] == 0)
      Yd[i] = Xd[{i[0] + 1}];
    else
      Yd[i] = Xd[{i[0] - 1}];
  });
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    if (i[0] < 2 || !(i[0] + 1 < Ad.extent()[0]))
      return;
    Bd[i] = Ad[{i[0] - 2, i[1]}] + Ad[{i[0] + 1, i[1]}] + (i[1] >= 1 ? Ad[{i[0], i[1] - 1}] : 0.0);
  });
}

int main() {
  std::vector<float> x(kN), y(kN, 0.0f);
  for (int k = 0; k < kN; ++k)
    x[k] = static_cast<float>(k % 7) - 3.0f;
  std::vector<double> a(kRows * kCols), b(kRows * kCols, -1.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 11) * 0.25;
  s2p::field<1, float> Y(y.data(), {kN});
  s2p::field<2, double> B(b.data(), {kRows, kCols});
  smooth(Y, s2p::field<1, float>(x.data(), {kN}), B,
         s2p::field<2, double>(a.data(), {kRows, kCols}));
  sample::print_array("y", y.data(), y.size());
  sample::print_array("B", b.data(), b.size());
  return 0;
}
