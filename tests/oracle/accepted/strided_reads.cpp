// Strided reads, an index coordinate times a constant, written the ways a user would: a
// multigrid restriction (`fine[{2 * i[0] - 1}]` .. `fine[{2 * i[0] + 1}]` under the `if` that
// keeps the ends in the field), a stride-2 convolution (`x[{2 * i[0] + k}]` over the taps), a
// transposed and strided 2-D read (`Ad[{i[1] * 2, i[0]}]`), a strided read through a helper,
// and block tasks reading every other block row (`At({2 * b[0], k})`). Each tile is given the
// rectangle around the elements its indices read. Results must equal the sequential build on
// every backend.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kCoarse = 21, kFine = 2 * kCoarse + 1, kTaps = 4;
constexpr int kRows = 10, kCols = 6; // B is kRows x kCols, A is 2 * kCols x kRows
constexpr int kBlock = 3;
} // namespace

template <class F> double at_stride(const F& f, long i) { return f[{3 * i}]; }

S2P_KERNEL S2P_TILES(4) void restrict_and_filter(const s2p::field<1, double>& Fine,
                                                 const s2p::field<1, double>& W,
                                                 s2p::field<1, double>& Coarse,
                                                 s2p::field<1, double>& Filtered,
                                                 s2p::field<1, double>& Every3rd) {
  auto fine_map = s2p::resource_map<1>::block(Fine.extent(), 4);
  auto coarse_map = s2p::resource_map<1>::block(Coarse.extent(), 4);
  auto taps_map = s2p::resource_map<1>::block(W.extent(), 4);
  auto fd = s2p::agile(Fine, fine_map);
  auto wd = s2p::agile(W, taps_map);
  auto cd = s2p::agile(Coarse, coarse_map);
  auto yd = s2p::agile(Filtered, coarse_map);
  auto ed = s2p::agile(Every3rd, s2p::resource_map<1>::cyclic(Every3rd.extent(), 4));
  const long n = Coarse.extent()[0];
  s2p::forall(cd.extent(), [&](s2p::index<1> i) {
    if (i[0] >= 1 && i[0] < n - 1)
      cd[i] = 0.25 * fd[{2 * i[0] - 1}] + 0.5 * fd[{2 * i[0]}] + 0.25 * fd[{2 * i[0] + 1}];
    else
      cd[i] = fd[{i[0] * 2}];
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    if (i[0] < n - 1)
      for (int k = 0; k < kTaps; ++k)
        sum += wd[{k}] * fd[{2 * i[0] + k}];
    yd[i] = sum;
  });
  s2p::forall(ed.extent(), [&](s2p::index<1> i) { ed[i] = at_stride(fd, i[0]) - 1.0; });
}

// B(r, c) = A(2c, r) + A(2c + 1, r): a transposed read, strided along A's rows.
S2P_KERNEL S2P_TILES(3) void pair_rows(const s2p::field<2, double>& A, s2p::field<2, double>& B) {
  auto bmap = s2p::resource_map<2>::block_block(B.extent(), {4, 3}, 3);
  auto amap = s2p::resource_map<2>::block(A.extent(), 3);
  auto Ad = s2p::agile(A, amap);
  auto Bd = s2p::agile(B, bmap);
  s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
    Bd[i] = Ad[{i[1] * 2, i[0]}] + 0.5 * Ad[{2 * i[1] + 1, i[0]}];
  });
}

// Block row b[0] of R sums the even block rows 2 * b[0] of S along its block columns.
S2P_KERNEL S2P_TILES(2) void even_block_rows(const s2p::field<2, double>& S, s2p::field<2, double>& R) {
  auto smap = s2p::resource_map<2>::block_cyclic(S.extent(), {kBlock, kBlock}, 2);
  auto rmap = s2p::resource_map<2>::block_cyclic(R.extent(), {kBlock, kBlock}, 2);
  auto Sd = s2p::agile(S, smap);
  auto Rd = s2p::agile(R, rmap);
  auto St = s2p::tiles(Sd);
  auto Rt = s2p::tiles(Rd);
  s2p::forall(Rt.blocks(), [&](s2p::index<2> b) {
    auto r = Rt(b);
    for (int k = 0; k < 2; ++k) {
      const auto s = St({2 * b[0], k});
      s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] += s[j] * (k + 1); });
    }
  });
}

int main() {
  std::vector<double> fine(kFine), taps(kTaps), coarse(kCoarse), filtered(kCoarse),
      every3rd((kFine + 2) / 3);
  for (int k = 0; k < kFine; ++k)
    fine[static_cast<std::size_t>(k)] = (k * 7) % 5 + 0.125 * k * k;
  for (int k = 0; k < kTaps; ++k)
    taps[static_cast<std::size_t>(k)] = 1.0 + k;
  s2p::field<1, double> Fine(fine.data(), {kFine}), W(taps.data(), {kTaps}),
      Coarse(coarse.data(), {kCoarse}), Filtered(filtered.data(), {kCoarse}),
      Every3rd(every3rd.data(), {static_cast<long>(every3rd.size())});
  restrict_and_filter(Fine, W, Coarse, Filtered, Every3rd);
  sample::print_array("coarse", coarse.data(), coarse.size());
  sample::print_array("filtered", filtered.data(), filtered.size());
  sample::print_array("every3rd", every3rd.data(), every3rd.size());
  std::vector<double> a(2 * kCols * kRows), b(kRows * kCols);
  for (int r = 0; r < 2 * kCols; ++r)
    for (int c = 0; c < kRows; ++c)
      a[static_cast<std::size_t>(r * kRows + c)] = ((r * 5 + c * 3) % 11) - 4.0;
  s2p::field<2, double> A(a.data(), {2 * kCols, kRows}), B(b.data(), {kRows, kCols});
  pair_rows(A, B);
  sample::print_array("b", b.data(), b.size());
  std::vector<double> s(4 * kBlock * 2 * kBlock), r(2 * kBlock * 2 * kBlock, 1.0);
  for (std::size_t k = 0; k < s.size(); ++k)
    s[k] = static_cast<double>((k * 13) % 7);
  s2p::field<2, double> S(s.data(), {4 * kBlock, 2 * kBlock}), R(r.data(), {2 * kBlock, 2 * kBlock});
  even_block_rows(S, R);
  sample::print_array("r", r.data(), r.size());
  return 0;
}
