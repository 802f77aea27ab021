// gramschmidt: the QR decomposition of A (M x N) by modified Gram-Schmidt, as PolyBench
// computes it: for each column k, its norm R(k, k), the column of Q, the row of R to the
// right of the pivot, then the columns of A to the right less their projections. The k loop
// stays sequential; each forall computes what its `if` selects, every element in parallel.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cmath>
#include <vector>

namespace {
constexpr int kM = 40, kN = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void gramschmidt(s2p::field<2, double>& A, s2p::field<2, double>& R,
                                         s2p::field<2, double>& Q) {
  auto a_map = s2p::resource_map<2>::block_cyclic(A.extent(), {1, A.extent()[1]}, 4);
  // R's columns dealt in turn: each step computes a row of R, which then spans every tile.
  auto r_map = s2p::resource_map<2>::block_cyclic(R.extent(), {R.extent()[0], 1}, 4);
  auto Ad = s2p::agile(A, a_map);
  auto Rd = s2p::agile(R, r_map);
  auto Qd = s2p::agile(Q, a_map);
  const int m = A.extent()[0], n = A.extent()[1];
  for (int k = 0; k < n; ++k) {
    s2p::forall(Rd.extent(), [&](s2p::index<2> i) {
      if (i[0] == k && i[1] == k) {
        double norm = 0.0;
        for (int r = 0; r < m; ++r)
          norm += Ad[{r, k}] * Ad[{r, k}];
        Rd[i] = std::sqrt(norm);
      }
    });
    s2p::forall(Qd.extent(), [&](s2p::index<2> i) {
      if (i[1] == k)
        Qd[i] = Ad[i] / Rd[{k, k}];
    });
    s2p::forall(Rd.extent(), [&](s2p::index<2> i) {
      if (i[0] == k && i[1] > k) {
        double dot = 0.0;
        for (int r = 0; r < m; ++r)
          dot += Qd[{r, k}] * Ad[{r, i[1]}];
        Rd[i] = dot;
      }
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[1] > k)
        Ad[i] -= Qd[{i[0], k}] * Rd[{k, i[1]}];
    });
  }
}

int main() {
  std::vector<double> a(kM * kN), r(kN * kN, 0.0), q(kM * kN, 0.0);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = (static_cast<double>((i * j) % kM) / kM) * 100.0 + 10.0 + (i == j ? 50.0 : 0.0);
  s2p::field<2, double> A(a.data(), {kM, kN}), R(r.data(), {kN, kN}), Q(q.data(), {kM, kN});
  gramschmidt(A, R, Q);
  sample::print_array("R", r.data(), r.size());
  sample::print_array("Q", q.data(), q.size());
  return 0;
}
