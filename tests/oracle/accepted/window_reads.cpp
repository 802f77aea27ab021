// Reads at the forall's index plus a loop variable of the body (a window of the index), the
// convolutions and correlation stencils kernel engineers write: a 1-d valid convolution
// (Xd[{i[0] + k}]), a 3 x 3 stencil whose offsets are loops (i[0] + di with di in [-1, 2))
// under a boundary `if`, with a vector's window read in that matrix forall, the window written
// loop first (k + i[0]) and subtracted (i[0] - k), a window plus a constant (i[0] + k + 1), a
// window through a helper, a loop whose bound is a kernel value (its range planned at launch),
// and a window of blocks in a task over tile blocks (At({b[0], b[1] + k})).
// window_reads.plan.json fuses convolve's two foralls, so the second's output becomes a further
// output of the fused one. Each must compute what the sequential build computes on every
// backend, with owner-copy moving each tile's window.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40, kTaps = 5, kRows = 18, kCols = 14, kBlock = 4;
} // namespace

// x(r + k) over the helper's own window.
template <class F> double window_sum(const F& f, long r, int width) {
  double sum = 0.0;
  for (int k = 0; k < width; ++k)
    sum += f[{r + k}];
  return sum;
}

S2P_KERNEL S2P_TILES(4) void convolve(int taps, s2p::field<1, double>& y, s2p::field<1, double>& z,
                                      const s2p::field<1, double>& x,
                                      const s2p::field<1, double>& w) {
  auto y_map = s2p::resource_map<1>::block(y.extent(), 4);
  auto x_map = s2p::resource_map<1>::cyclic(x.extent(), 4);
  auto w_map = s2p::resource_map<1>::block(w.extent(), 4);
  auto yd = s2p::agile(y, y_map);
  auto zd = s2p::agile(z, y_map);
  auto xd = s2p::agile(x, x_map);
  auto wd = s2p::agile(w, w_map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < kTaps; ++k)
      sum += wd[{k}] * xd[{i[0] + k}];
    for (int k = 1; k < 3; ++k) // written loop first, and behind the index
      sum += 0.25 * xd[{k + i[0]}] - 0.5 * xd[{i[0] + 4 - k}];
    for (int k = 0; k < 2; ++k)
      sum += xd[{i[0] + k + 1}] * 0.125;
    yd[i] = sum + window_sum(xd, i[0], 3);
  });
  s2p::forall(zd.extent(), [&](s2p::index<1> i) {
    double sum = 0.0;
    for (int k = 0; k < taps; ++k) // a bound only the running kernel knows: planned at launch
      sum += xd[{i[0] + k}] * wd[{k}];
    zd[i] = sum;
  });
}

S2P_KERNEL S2P_TILES(4) void smooth(s2p::field<2, double>& out, const s2p::field<2, double>& in,
                                    const s2p::field<1, double>& v) {
  auto out_map = s2p::resource_map<2>::block(out.extent(), 4);
  auto in_map = s2p::resource_map<2>::block_cyclic(in.extent(), {5, 3}, 4);
  auto v_map = s2p::resource_map<1>::cyclic(v.extent(), 4);
  auto Od = s2p::agile(out, out_map);
  auto Id = s2p::agile(in, in_map);
  auto Vd = s2p::agile(v, v_map);
  const int rows = Od.extent()[0], cols = Od.extent()[1];
  s2p::forall(Od.extent(), [&](s2p::index<2> i) {
    double sum = 0.0;
    if (i[0] >= 1 && i[0] < rows - 1 && i[1] >= 1 && i[1] < cols - 1)
      for (int di = -1; di < 2; ++di)
        for (int dj = -1; dj < 2; ++dj)
          sum += Id[{i[0] + di, i[1] + dj}] * (di == 0 && dj == 0 ? 0.5 : 0.0625) +
                 Vd[{i[1] + dj + 1}] * 0.125; // a vector's window in a matrix forall
    Od[i] = sum;
  });
}

// R(b) = sum over k of A(b[0], b[1] + k) * (k + 1): a window of A's blocks per task.
S2P_KERNEL S2P_TILES(3) void block_windows(s2p::field<2, double>& R, const s2p::field<2, double>& A) {
  auto r_map = s2p::resource_map<2>::block_cyclic(R.extent(), {kBlock, kBlock}, 3)
                   .algorithmic_blocks({kBlock, kBlock});
  auto a_map = s2p::resource_map<2>::block_cyclic(A.extent(), {kBlock, kBlock}, 3)
                   .algorithmic_blocks({kBlock, kBlock});
  auto Rd = s2p::agile(R, r_map);
  auto Ad = s2p::agile(A, a_map);
  auto Rt = s2p::tiles(Rd);
  auto At = s2p::tiles(Ad);
  s2p::forall(Rt.blocks(), [&](s2p::index<2> b) {
    const auto r = Rt(b);
    for (int k = 0; k < 3; ++k) {
      const auto a = At({b[0], b[1] + k});
      s2p::forall(r.extent(), [&](s2p::index<2> j) { r[j] += a[j] * static_cast<double>(k + 1); });
    }
  });
}

int main() {
  std::vector<double> x(kN), w(kTaps), y(kN - kTaps + 1), z(kN - kTaps + 1);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(static_cast<int>(k * 11 % 17) - 8) * 0.25;
  for (std::size_t k = 0; k < w.size(); ++k)
    w[k] = 1.0 / static_cast<double>(k + 1);
  s2p::field<1, double> Y(y.data(), {static_cast<long>(y.size())});
  s2p::field<1, double> Z(z.data(), {static_cast<long>(z.size())});
  convolve(kTaps, Y, Z, s2p::field<1, double>(x.data(), {kN}), s2p::field<1, double>(w.data(), {kTaps}));
  std::vector<double> in(kRows * kCols), out(kRows * kCols);
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = static_cast<double>(static_cast<int>(k * 5 % 23) - 11) * 0.5;
  s2p::field<2, double> Out(out.data(), {kRows, kCols});
  std::vector<double> v(kCols + 2);
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<double>(k % 7) - 3.0;
  smooth(Out, s2p::field<2, double>(in.data(), {kRows, kCols}),
         s2p::field<1, double>(v.data(), {kCols + 2}));
  std::vector<double> r(3 * kBlock * 2 * kBlock, 0.0), a(3 * kBlock * 4 * kBlock);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<double>(static_cast<int>(k * 3 % 19) - 9) * 0.5;
  s2p::field<2, double> R(r.data(), {3 * kBlock, 2 * kBlock});
  block_windows(R, s2p::field<2, double>(a.data(), {3 * kBlock, 4 * kBlock}));
  sample::print_array("y", y.data(), y.size());
  sample::print_array("z", z.data(), z.size());
  sample::print_array("out", out.data(), out.size());
  sample::print_array("r", r.data(), r.size());
  return 0;
}
