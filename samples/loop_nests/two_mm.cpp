// 2mm: D = alpha * A * B * C + beta * D, as two loop nests in one kernel: tmp = alpha * A * B,
// then D = beta * D + tmp * C. Each forall replaces the two outer loops of its nest; the
// second reads the first's result (tmp's rows), which owner-copy moves between the steps.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kNi = 32, kNj = 36, kNk = 40, kNl = 28;
} // namespace

S2P_KERNEL S2P_TILES(4) void two_mm(double alpha, double beta, s2p::field<2, double>& tmp,
                                    const s2p::field<2, double>& A, const s2p::field<2, double>& B,
                                    const s2p::field<2, double>& C, s2p::field<2, double>& D) {
  auto tmp_map = s2p::resource_map<2>::block(tmp.extent(), 4);
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto b_map = s2p::resource_map<2>::block(B.extent(), 4);
  auto c_map = s2p::resource_map<2>::block(C.extent(), 4);
  auto d_map = s2p::resource_map<2>::block(D.extent(), 4);
  auto Td = s2p::agile(tmp, tmp_map);
  auto Ad = s2p::agile(A, a_map);
  auto Bd = s2p::agile(B, b_map);
  auto Cd = s2p::agile(C, c_map);
  auto Dd = s2p::agile(D, d_map);
  s2p::forall(Td.extent(), [&](s2p::index<2> i) {
    Td[i] = 0.0;
    for (int k = 0; k < Ad.extent()[1]; ++k)
      Td[i] += alpha * Ad[{i[0], k}] * Bd[{k, i[1]}];
  });
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) {
    Dd[i] *= beta;
    for (int k = 0; k < Td.extent()[1]; ++k)
      Dd[i] += Td[{i[0], k}] * Cd[{k, i[1]}];
  });
}

int main() {
  std::vector<double> tmp(kNi * kNj), a(kNi * kNk), b(kNk * kNj), c(kNj * kNl), d(kNi * kNl);
  for (int i = 0; i < kNi; ++i)
    for (int k = 0; k < kNk; ++k)
      a[i * kNk + k] = static_cast<double>((i * k + 1) % kNi) / kNi;
  for (int k = 0; k < kNk; ++k)
    for (int j = 0; j < kNj; ++j)
      b[k * kNj + j] = static_cast<double>(k * (j + 1) % kNj) / kNj;
  for (int j = 0; j < kNj; ++j)
    for (int l = 0; l < kNl; ++l)
      c[j * kNl + l] = static_cast<double>((j * (l + 3) + 1) % kNl) / kNl;
  for (int i = 0; i < kNi; ++i)
    for (int l = 0; l < kNl; ++l)
      d[i * kNl + l] = static_cast<double>(i * (l + 2) % kNk) / kNk;
  s2p::field<2, double> T(tmp.data(), {kNi, kNj}), D(d.data(), {kNi, kNl});
  two_mm(1.5, 1.2, T, s2p::field<2, double>(a.data(), {kNi, kNk}),
         s2p::field<2, double>(b.data(), {kNk, kNj}), s2p::field<2, double>(c.data(), {kNj, kNl}),
         D);
  sample::print_array("D", d.data(), d.size());
  return 0;
}
