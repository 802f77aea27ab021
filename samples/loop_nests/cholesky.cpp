// cholesky: A = L * L^T for a symmetric positive definite A, L written over A's lower
// triangle, right-looking: for each k, the pivot's square root, the column below it divided by
// it, then the trailing lower triangle less the outer product of that column with itself. Each
// forall reads column k, which its `if` keeps it from writing, so its iterations are
// independent; the k loop stays sequential. The upper triangle keeps its values.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cmath>
#include <vector>

namespace {
constexpr int kN = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void cholesky(s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(A.extent(), {1, A.extent()[1]}, 4);
  auto Ad = s2p::agile(A, map);
  const int n = A.extent()[0];
  for (int k = 0; k < n; ++k) {
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] == k && i[1] == k)
        Ad[i] = std::sqrt(Ad[i]);
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] == k)
        Ad[i] = Ad[i] / Ad[{k, k}];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] > k && i[1] <= i[0])
        Ad[i] -= Ad[{i[0], k}] * Ad[{i[1], k}];
    });
  }
}

int main() {
  std::vector<double> a(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = i == j ? kN : 1.0 / (i + j + 1);
  s2p::field<2, double> A(a.data(), {kN, kN});
  cholesky(A);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
