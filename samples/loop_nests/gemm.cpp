// gemm: C = alpha * A * B + beta * C, written as the loop nest it is, with a forall over C's
// elements in place of the two outer loops. Each element's dot product over k runs on the tile
// that owns it: owner-copy moves to each tile the rows of A and the columns of B its elements
// read (A's row band and all of B here, B's rows being dealt to the other tiles).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kNi = 40, kNj = 36, kNk = 44;
} // namespace

S2P_KERNEL S2P_TILES(4) void gemm(double alpha, double beta, s2p::field<2, double>& C,
                                  const s2p::field<2, double>& A,
                                  const s2p::field<2, double>& B) {
  auto c_map = s2p::resource_map<2>::block(C.extent(), 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto b_map = s2p::resource_map<2>::block(B.extent(), 4);
  auto Cd = s2p::agile(C, c_map);
  auto Ad = s2p::agile(A, a_map);
  auto Bd = s2p::agile(B, b_map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
    Cd[i] *= beta;
    for (int k = 0; k < Ad.extent()[1]; ++k)
      Cd[i] += alpha * Ad[{i[0], k}] * Bd[{k, i[1]}];
  });
}

int main() {
  std::vector<double> a(kNi * kNk), b(kNk * kNj), c(kNi * kNj);
  for (int i = 0; i < kNi; ++i)
    for (int k = 0; k < kNk; ++k)
      a[i * kNk + k] = static_cast<double>((i * k + 1) % kNi) / kNi;
  for (int k = 0; k < kNk; ++k)
    for (int j = 0; j < kNj; ++j)
      b[k * kNj + j] = static_cast<double>((k * (j + 1)) % kNj) / kNj;
  for (int i = 0; i < kNi; ++i)
    for (int j = 0; j < kNj; ++j)
      c[i * kNj + j] = static_cast<double>((i * j + 2) % kNk) / kNk;
  s2p::field<2, double> C(c.data(), {kNi, kNj});
  gemm(1.5, 1.2, C, s2p::field<2, double>(a.data(), {kNi, kNk}),
       s2p::field<2, double>(b.data(), {kNk, kNj}));
  sample::print_array("C", c.data(), c.size());
  return 0;
}
