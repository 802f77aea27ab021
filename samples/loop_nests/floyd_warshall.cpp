// floyd-warshall: the shortest paths between every pair of N nodes, relaxing through node k
// for each k in turn. Row k and column k do not change in step k (a path through k to k is no
// shorter), so the forall leaves them out with its `if`; then every element it reads is one
// it does not write, and its iterations are independent. The k loop stays sequential.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <algorithm>
#include <vector>

namespace {
constexpr int kN = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void floyd_warshall(s2p::field<2, double>& paths) {
  auto map = s2p::resource_map<2>::block_cyclic(paths.extent(), {1, paths.extent()[1]}, 4);
  auto Pd = s2p::agile(paths, map);
  const int n = paths.extent()[0];
  for (int k = 0; k < n; ++k)
    s2p::forall(Pd.extent(), [&](s2p::index<2> i) {
      if (i[0] != k && i[1] != k)
        Pd[i] = std::min(Pd[i], Pd[{i[0], k}] + Pd[{k, i[1]}]);
    });
}

int main() {
  std::vector<double> paths(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      paths[i * kN + j] = i == j ? 0.0 : ((i * j) % 7 + 1) * ((i + j) % 13 == 0 ? 1.0 : 9.0);
  s2p::field<2, double> P(paths.data(), {kN, kN});
  floyd_warshall(P);
  sample::print_array("paths", paths.data(), paths.size());
  return 0;
}
