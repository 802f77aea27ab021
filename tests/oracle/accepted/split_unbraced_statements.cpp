// A forall that writes two fields, split by its plan (loop fission) into two foralls, whose
// statements end without braces: a loop whose body is one expression (bounded by the index, a
// triangle), a loop over a run-time window, an `if` with an expression body, and a further
// output computed through a helper. The split copied each statement's text without the `;` its
// source range leaves out, and the generated program did not compile. Each part reads its
// fields as the sequential build does, with and without greedy stealing, and on mpi -n 3.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kEdge = 10;

double fixed_element(const auto& f, long row, long col) { return f[{row, col}]; }
} // namespace

S2P_KERNEL S2P_TILES(4) void split_rows(int taps, const s2p::field<2, double>& L,
                                        s2p::field<2, double>& Y, s2p::field<2, double>& Z) {
  auto map = s2p::resource_map<2>::block_cyclic(L.extent(), {1, kEdge}, 4);
  auto Ld = s2p::agile(L, map);
  auto Yd = s2p::agile(Y, map);
  auto Zd = s2p::agile(Z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<2> i) {
    double s = 0.0;
    for (int k = 0; k <= i[0]; ++k)
      s += Ld[{k, i[1]}];
    for (int k = 0; k < taps; ++k)
      if (i[1] + k < kEdge)
        s += 0.5 * Ld[{i[0], i[1] + k}];
    if (i[0] > 0)
      s -= 0.25 * Ld[{i[0] - 1, i[1]}];
    Yd[i] = s + Yd[i];
    Zd[i] = 2.0 * Yd[i] - fixed_element(Ld, i[0], 0);
  });
}

int main() {
  std::vector<double> l(kEdge * kEdge), y(kEdge * kEdge), z(kEdge * kEdge);
  for (int k = 0; k < kEdge * kEdge; ++k) {
    l[static_cast<std::size_t>(k)] = (k * 5) % 7;
    y[static_cast<std::size_t>(k)] = k % 3;
  }
  s2p::field<2, double> L(l.data(), {kEdge, kEdge}), Y(y.data(), {kEdge, kEdge}),
      Z(z.data(), {kEdge, kEdge});
  split_rows(3, L, Y, Z);
  split_rows(0, L, Y, Z);
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());
  return 0;
}
