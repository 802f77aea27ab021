// Host loops that only call multi-tile kernels: on mpi the results of one call stay on the ranks
// for the next (the generated file opens a kernel scope around the loop), in combination: two
// kernels alternating on interior sections of two grids (each reads the whole grid the other
// wrote), a loop written without braces, a do-while, a nested loop passing its counters, a
// kernel whose declarations read extents, a ring collective inside the loop (it needs every
// row on every rank), a transposed read under a boundary test that is a box (each rank reads
// what every other holds), and loops that must not keep results: one that reads a field on the
// host between calls, one that calls a kernel whose declarations read an element. tests/mpi runs
// it as a job on 2 and 3 ranks.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

S2P_KERNEL S2P_TILES(4) void smooth(s2p::field<2, double>& next, const s2p::field<2, double>& grid,
                                    int t) {
  const auto rows = next.extent()[0];
  auto map = s2p::resource_map<2>::block(next.extent(), 4);
  auto grid_map = s2p::resource_map<2>::block(grid.extent(), 4);
  auto Nd = s2p::agile(next, map);
  auto Gd = s2p::agile(grid, grid_map);
  s2p::forall(Nd.extent(), [&](s2p::index<2> i) {
    Nd[i] = 0.2 * (Gd[{i[0] + 1, i[1] + 1}] + Gd[{i[0] + 1, i[1]}] + Gd[{i[0] + 1, i[1] + 2}] +
                   Gd[{i[0] + 2, i[1] + 1}] + Gd[{i[0], i[1] + 1}]) +
            0.001 * (t + rows);
  });
}

// Each row's sum on every tile, then added back: the collective reads what earlier calls kept.
S2P_KERNEL S2P_TILES(4) void totals(s2p::field<2, double>& A, s2p::field<2, double>& S) {
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto tile_rows = s2p::resource_map<2>::block(S.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Sd = s2p::agile(S, tile_rows);
  s2p::forall(Sd.extent(), [&](s2p::index<2> i) { Sd[i] = Ad[{i[0] + 2, i[1]}] * 0.01; });
  s2p::all_reduce(S, s2p::sum{});
  s2p::forall(Ad.extent(), [&](s2p::index<2> i) { Ad[i] += Sd[{0, i[1]}]; });
}

// Guarded by a box (run over the box alone in place): kept results read and written under it.
S2P_KERNEL S2P_TILES(4) void transpose_add(s2p::field<2, double>& Q, const s2p::field<2, double>& P) {
  const auto m = Q.extent()[1];
  auto map = s2p::resource_map<2>::block(Q.extent(), 4);
  auto Qd = s2p::agile(Q, map);
  auto Pt = s2p::agile(P.transpose(), map);
  s2p::forall(Qd.extent(), [&](s2p::index<2> i) {
    if (i[0] >= 1 && i[1] < m - 1)
      Qd[i] = 0.5 * Qd[i] + Pt[i];
  });
}

// Its declarations read an element on the host at every call: its results cannot stay on the
// ranks between calls.
S2P_KERNEL S2P_TILES(4) void shift(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  const double first = x(0);
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 0.5 + first; });
}

int main() {
  constexpr int kN = 16;
  std::vector<double> a(kN * kN), b(kN * kN), s(4 * kN, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>((k * 37) % 101) * 0.01;
    b[k] = static_cast<double>((k * 53) % 97) * 0.02;
  }
  s2p::field<2, double> A(a.data(), {kN, kN}), B(b.data(), {kN, kN}), S(s.data(), {4, kN});
  const s2p::grid<2> interior{{kN - 2, kN - 2}, {1, 1}};
  s2p::field<2, double> inner_a = A.section(interior), inner_b = B.section(interior);
  for (int t = 0; t < 3; ++t) {
    smooth(inner_b, A, t);
    smooth(inner_a, B, t);
  }
  for (int t = 0; t < 2; ++t)
    smooth(inner_b, A, 10 + t);
  int pass = 0;
  do {
    smooth(inner_a, B, 20 + pass);
    ++pass;
  } while (pass < 2);
  sample::print_array("A after sweeps", a.data(), a.size());
  sample::print_array("B after sweeps", b.data(), b.size());
  int round = 0;
  while (round < 2) {
    for (int k = 0; k < 2; ++k)
      smooth(inner_a, B, round * 2 + k);
    totals(A, S);
    transpose_add(B, A);
    ++round;
  }
  sample::print_array("A", a.data(), a.size());
  sample::print_array("B", b.data(), b.size());
  sample::print_array("S", s.data(), s.size());

  // Reads a field on the host between the calls: each call gathers its results.
  double seen = 0.0;
  for (int t = 0; t < 2; ++t) {
    transpose_add(A, B);
    seen += A(3, 5);
    transpose_add(B, A);
  }
  std::printf("seen %.12f\n", seen);

  std::vector<double> x(40), y(40, 0.0);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k % 7) * 0.25;
  s2p::field<1, double> X(x.data(), {40}), Y(y.data(), {40});
  for (int t = 0; t < 3; ++t) {
    shift(Y, X);
    shift(X, Y);
  }
  sample::print_array("X", x.data(), x.size());
  sample::print_array("Y", y.data(), y.size());
  return 0;
}
