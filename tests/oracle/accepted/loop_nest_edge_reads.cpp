// Reads whose loops and guards say less than they seem to: a loop variable the body moves past
// its header's range, and a guard compared in unsigned arithmetic (always true for C++, though
// it reads as i[0] >= 4 in the integers). Owner-copy must give each tile what the body really
// reads (both once aborted with "a forall read an element its tile was not given").
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

// The unsigned comparison below is the point of the case.
#pragma GCC diagnostic ignored "-Wsign-compare"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wtype-limits" // GCC: `x >= 0ul` is always true, as meant
#endif

namespace {
constexpr int kN = 64, kCols = 8;
} // namespace

S2P_KERNEL S2P_TILES(4) void edges(s2p::field<1, double>& y, s2p::field<1, double>& z,
                                   const s2p::field<2, double>& A, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  // A's columns in bands: column k of row i lives on tile k / 2, not with row i.
  auto a_map = s2p::resource_map<2>::block_block(A.extent(), {kN, 2}, 4);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  auto Ad = s2p::agile(A, a_map);
  auto Xd = s2p::agile(x, map);
  const long n = x.extent()[0];
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < 2; ++k) {
      if (k == 1)
        k = 6; // the second pass reads column 6
      sum += Ad[{i[0], k}];
    }
    Yd[i] = sum;
  });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    Zd[i] = 0.0;
    if (i[0] + 16 - 20 >= 0ul && i[0] + 16 < n)
      Zd[i] = Xd[{i[0] + 16}];
  });
}

int main() {
  std::vector<double> y(kN), z(kN), a(kN * kCols), x(kN);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(k % 17) * 0.5;
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k % 5) + 1.0;
  s2p::field<1, double> Y(y.data(), {kN}), Z(z.data(), {kN});
  edges(Y, Z, s2p::field<2, double>(a.data(), {kN, kCols}), s2p::field<1, double>(x.data(), {kN}));
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());
  return 0;
}
