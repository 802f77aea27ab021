// doitgen: multiresolution analysis kernel (PolyBench's MADNESS kernel): each (r, q) slice
// of A times the matrix C4. PolyBench accumulates a slice in `sum` and copies it back into A;
// here one forall computes every sum element (a rank-3 forall reading A's slice row and a
// column of the rank-2 C4), a second copies sum back.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kNr = 10, kNq = 8, kNp = 12;
} // namespace

S2P_KERNEL S2P_TILES(4) void doitgen(s2p::field<3, double>& A, const s2p::field<2, double>& C4,
                                     s2p::field<3, double>& sum) {
  auto map = s2p::resource_map<3>::block(A.extent(), 4);
  auto c4_map = s2p::resource_map<2>::block(C4.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto C4d = s2p::agile(C4, c4_map);
  auto sumd = s2p::agile(sum, map);
  s2p::forall(sumd.extent(), [&](s2p::index<3> i) {
    sumd[i] = 0.0;
    for (int s = 0; s < C4d.extent()[0]; ++s)
      sumd[i] += Ad[{i[0], i[1], s}] * C4d[{s, i[2]}];
  });
  s2p::forall(Ad.extent(), [&](s2p::index<3> i) { Ad[i] = sumd[i]; });
}

int main() {
  std::vector<double> a(kNr * kNq * kNp), c4(kNp * kNp), sum(kNr * kNq * kNp);
  for (int r = 0; r < kNr; ++r)
    for (int q = 0; q < kNq; ++q)
      for (int p = 0; p < kNp; ++p)
        a[(r * kNq + q) * kNp + p] = static_cast<double>((r * q + p) % kNp) / kNp;
  for (int i = 0; i < kNp; ++i)
    for (int j = 0; j < kNp; ++j)
      c4[i * kNp + j] = static_cast<double>(i * j % kNp) / kNp;
  s2p::field<3, double> A(a.data(), {kNr, kNq, kNp}), S(sum.data(), {kNr, kNq, kNp});
  doitgen(A, s2p::field<2, double>(c4.data(), {kNp, kNp}), S);
  sample::print_array("A", a.data(), a.size());
  return 0;
}
