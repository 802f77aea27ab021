// syrk: C = alpha * A * A^T + beta * C on the lower triangle of C (PolyBench's symmetric
// rank-k update), written as the loop nest with a forall over C's elements and the triangle
// as the `if` it is. Element (i, j) reads rows i and j of A.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 36, kM = 30;
} // namespace

S2P_KERNEL S2P_TILES(4) void syrk(double alpha, double beta, s2p::field<2, double>& C,
                                  const s2p::field<2, double>& A) {
  // Rows dealt in turn: the triangle's long and short rows spread evenly over the tiles.
  auto c_map = s2p::resource_map<2>::block_cyclic(C.extent(), {1, C.extent()[1]}, 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Cd = s2p::agile(C, c_map);
  auto Ad = s2p::agile(A, a_map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[1] > i[0])
      return; // the upper triangle stays as it is
    Cd[i] *= beta;
    for (int k = 0; k < Ad.extent()[1]; ++k)
      Cd[i] += alpha * Ad[{i[0], k}] * Ad[{i[1], k}];
  });
}

int main() {
  std::vector<double> a(kN * kM), c(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j)
      a[i * kM + j] = static_cast<double>((i * j + 1) % kN) / kN;
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      c[i * kN + j] = static_cast<double>((i * j + 2) % kM) / kM;
  s2p::field<2, double> C(c.data(), {kN, kN});
  syrk(1.5, 1.2, C, s2p::field<2, double>(a.data(), {kN, kM}));
  sample::print_array("C", c.data(), c.size());
  return 0;
}
