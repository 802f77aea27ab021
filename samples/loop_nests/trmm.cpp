// trmm: B = alpha * A^T * B for a unit lower triangular A, in place, row by row as PolyBench
// computes it: row i of B takes the rows below it, which later steps of the i loop update, so
// they still hold their old values. The i loop stays sequential; each step's forall updates
// row i, every column in parallel (its `if` keeps it to that row, and the rows it reads are
// others).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kM = 24, kN = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void trmm(double alpha, const s2p::field<2, double>& A,
                                  s2p::field<2, double>& B) {
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto b_map = s2p::resource_map<2>::block_cyclic(B.extent(), {B.extent()[0], 1}, 4);
  auto Ad = s2p::agile(A, a_map);
  auto Bd = s2p::agile(B, b_map);
  const int m = B.extent()[0];
  for (int row = 0; row < m; ++row)
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] == row) {
        for (int k = row + 1; k < m; ++k)
          Bd[i] += Ad[{k, row}] * Bd[{k, i[1]}];
        Bd[i] = alpha * Bd[i];
      }
    });
}

int main() {
  std::vector<double> a(kM * kM), b(kM * kN);
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < i; ++j)
      a[i * kM + j] = static_cast<double>((i + j) % kM) / kM;
    a[i * kM + i] = 1.0;
    for (int j = 0; j < kN; ++j)
      b[i * kN + j] = static_cast<double>((kN + i - j) % kN) / kN;
  }
  s2p::field<2, double> A(a.data(), {kM, kM}), B(b.data(), {kM, kN});
  trmm(1.5, A, B);
  sample::print_array("B", b.data(), b.size());
  return 0;
}
