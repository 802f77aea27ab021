// lu: LU decomposition in place (Doolittle, no pivoting), right-looking: for each k, the
// column below the pivot is divided by it, then the trailing matrix takes the outer product
// of that column and the pivot row. Each forall reads row k and column k, which its `if`
// keeps it from writing, so its iterations are independent; the k loop stays sequential.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void lu(s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(A.extent(), {1, A.extent()[1]}, 4);
  auto Ad = s2p::agile(A, map);
  const int n = A.extent()[0];
  for (int k = 0; k < n; ++k) {
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] == k)
        Ad[i] = Ad[i] / Ad[{k, k}];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] > k)
        Ad[i] -= Ad[{i[0], k}] * Ad[{k, i[1]}];
    });
  }
}

int main() {
  std::vector<double> a(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = i == j ? kN + 1.0 : static_cast<double>((i * j + 3) % kN) / kN;
  s2p::field<2, double> A(a.data(), {kN, kN});
  lu(A);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
