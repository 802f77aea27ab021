// Block tasks (the local-global view) whose block coordinates are values of the kernel: a block
// column fixed by a parameter (At({b[0], col})) and a loop over block columns from a parameter
// to a kernel local (for (k = first; k < last; ++k) At({b[0], k})). The launch plans them in
// blocks (the tiles view's blocks(), not its field's extent(): the generated code did not
// compile before).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kEdge = 24;
constexpr int kBlock = 6;
} // namespace

S2P_KERNEL S2P_TILES(3) void block_column_sums(int first, int col, s2p::field<2, double>& R,
                                               const s2p::field<2, double>& A) {
  auto map = s2p::resource_map<2>::block_cyclic(R.extent(), {kBlock, kBlock}, 3)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Rd = s2p::agile(R, map);
  auto Ad = s2p::agile(A, map);
  auto Rt = s2p::tiles(Rd);
  auto At = s2p::tiles(Ad);
  const int last = kEdge / kBlock;
  s2p::forall(Rt.blocks(), [&](s2p::index<2> b) {
    const auto r = Rt(b);
    const auto fixed = At({b[0], col});
    s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] = 0.5 * r[j] + fixed[j]; });
    for (int k = first; k < last; ++k) {
      const auto a = At({b[0], k});
      s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] += a[j] * static_cast<double>(k + 1); });
    }
  });
}

int main() {
  std::vector<double> r(kEdge * kEdge), a(kEdge * kEdge);
  for (int i = 0; i < kEdge * kEdge; ++i) {
    r[static_cast<std::size_t>(i)] = static_cast<double>(i % 5);
    a[static_cast<std::size_t>(i)] = static_cast<double>((i * 7) % 11) / 4.0;
  }
  s2p::field<2, double> R(r.data(), {kEdge, kEdge}), A(a.data(), {kEdge, kEdge});
  block_column_sums(1, 2, R, A);
  sample::print_array("r", r.data(), r.size());
  return 0;
}
