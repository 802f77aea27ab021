// syr2k: C = alpha * (A * B^T + B * A^T) + beta * C on the lower triangle of C (PolyBench's
// symmetric rank-2k update): a forall over C's elements, the triangle an `if`. Element (i, j)
// reads rows i and j of both A and B.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 34, kM = 28;
} // namespace

S2P_KERNEL S2P_TILES(4) void syr2k(double alpha, double beta, s2p::field<2, double>& C,
                                   const s2p::field<2, double>& A,
                                   const s2p::field<2, double>& B) {
  // Rows dealt in turn: the triangle's long and short rows spread evenly over the tiles.
  auto c_map = s2p::resource_map<2>::block_cyclic(C.extent(), {1, C.extent()[1]}, 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto Cd = s2p::agile(C, c_map);
  auto Ad = s2p::agile(A, a_map);
  auto Bd = s2p::agile(B, a_map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    if (i[1] <= i[0]) {
      Cd[i] *= beta;
      for (int k = 0; k < Ad.extent()[1]; ++k)
        Cd[i] += Ad[{i[1], k}] * alpha * Bd[{i[0], k}] + Bd[{i[1], k}] * alpha * Ad[{i[0], k}];
    }
  });
}

int main() {
  std::vector<double> a(kN * kM), b(kN * kM), c(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j) {
      a[i * kM + j] = static_cast<double>((i * j + 1) % kN) / kN;
      b[i * kM + j] = static_cast<double>((i * j + 2) % kM) / kM;
    }
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      c[i * kN + j] = static_cast<double>((i * j + 3) % kN) / kM;
  s2p::field<2, double> C(c.data(), {kN, kN});
  syr2k(1.5, 1.2, C, s2p::field<2, double>(a.data(), {kN, kM}),
        s2p::field<2, double>(b.data(), {kN, kM}));
  sample::print_array("C", c.data(), c.size());
  return 0;
}
