// Results kept on the mpi ranks inside a kernel (each rank holds what it computed until a later
// step reads it elsewhere, or the kernel returns), in combination: steps that write interior
// sections and read the whole grids (the sections' elements placed in the kept field's
// coordinates), a field dealt along its second axis (few long rows: the ranks hold column
// bands), a transposed read (each rank reads what every other holds), a lower-rank field
// read by a rank-2 forall (lifted: another view of the kept field, so it is gathered), a ring
// collective between steps (it needs every row on every rank), and a forall that reads its
// output at other indices. tests/mpi runs it as a job on 2 and 3 ranks.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

S2P_KERNEL S2P_TILES(4) void sections(int steps, s2p::field<2, double>& A,
                                      s2p::field<2, double>& B) {
  const auto rows = A.extent()[0];
  const auto columns = A.extent()[1];
  const s2p::grid<2> interior{{rows - 2, columns - 2}, {1, 1}};
  auto inner_a = A.section(interior);
  auto inner_b = B.section(interior);
  auto map = s2p::resource_map<2>::block(A.extent(), 4);
  auto inner_map = s2p::resource_map<2>::block(inner_a.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Ai = s2p::agile(inner_a, inner_map);
  auto Bi = s2p::agile(inner_b, inner_map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bi.extent(), [&](s2p::index<2> i) {
      Bi[i] = 0.25 * (Ad[{i[0], i[1] + 1}] + Ad[{i[0] + 2, i[1] + 1}] + Ad[{i[0] + 1, i[1]}] +
                      Ad[{i[0] + 1, i[1] + 2}]) + 0.125 * t;
    });
    s2p::forall(Ai.extent(), [&](s2p::index<2> i) {
      Ai[i] = 0.5 * Bd[{i[0] + 1, i[1] + 1}] + 0.125 * (Bd[{i[0], i[1]}] + Bd[{i[0] + 2, i[1] + 2}]);
    });
    // The whole grid, boundary included, from the interior just written.
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] >= 1 && i[0] < rows - 1 && i[1] >= 1 && i[1] < columns - 1)
        Bd[i] = Ad[i] - Bd[i];
    });
  }
}

S2P_KERNEL S2P_TILES(4) void columns(int steps, s2p::field<2, double>& X, s2p::field<2, double>& Y,
                                     s2p::field<1, double>& totals) {
  auto map = s2p::resource_map<2>::block(X.extent(), 4);
  auto line = s2p::resource_map<1>::block(totals.extent(), 4);
  auto Xd = s2p::agile(X, map);
  auto Yd = s2p::agile(Y, map);
  auto Td = s2p::agile(totals, line);
  const auto m = X.extent()[1];
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Yd.extent(), [&](s2p::index<2> i) {
      Yd[i] = Xd[i];
      if (i[1] > 0)
        Yd[i] += 0.5 * Xd[{i[0], i[1] - 1}];
    });
    s2p::forall(Xd.extent(), [&](s2p::index<2> i) {
      Xd[i] = Yd[i];
      if (i[1] < m - 1)
        Xd[i] -= 0.25 * Yd[{i[0], i[1] + 1}];
    });
    // A 1-d field written, then read by a rank-2 forall (lifted), then written again.
    s2p::forall(Td.extent(), [&](s2p::index<1> i) { Td[i] = Td[i] * 0.5 + Xd[{0, i[0]}]; });
    s2p::forall(Yd.extent(), [&](s2p::index<2> i) { Yd[i] = Xd[i] + Td[{i[1]}]; });
  }
}

S2P_KERNEL S2P_TILES(4) void transposed(s2p::field<2, double>& P, s2p::field<2, double>& Q,
                                        s2p::field<2, double>& S) {
  auto map = s2p::resource_map<2>::block(P.extent(), 4);
  auto per_tile = s2p::resource_map<2>::block_block(S.extent(), {1, S.extent()[1]}, 4);
  auto Pd = s2p::agile(P, map);
  auto Qd = s2p::agile(Q, map);
  auto Sd = s2p::agile(S, per_tile);
  s2p::forall(Qd.extent(), [&](s2p::index<2> i) { Qd[i] = Pd[i] * 2.0 + 1.0; });
  s2p::forall(Pd.extent(), [&](s2p::index<2> i) { Pd[i] = Qd[{i[1], i[0]}] - Qd[i]; });
  // The output read at other indices: the diagonal, which no iteration here writes.
  s2p::forall(Qd.extent(), [&](s2p::index<2> i) {
    if (i[0] != i[1])
      Qd[i] = Pd[i] + Qd[{i[0], i[0]}] * Qd[{i[1], i[1]}];
  });
  s2p::forall(Sd.extent(), [&](s2p::index<2> i) { Sd[i] = Qd[i] + Qd[{i[0] + 4, i[1]}]; });
  s2p::all_reduce(S, s2p::sum{});
  s2p::forall(Pd.extent(), [&](s2p::index<2> i) { Pd[i] += Sd[{0, i[1]}]; });
}

int main() {
  constexpr int kRows = 30, kColumns = 21;
  std::vector<double> a(kRows * kColumns), b(kRows * kColumns);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>((k * 37) % 101) * 0.01;
    b[k] = static_cast<double>((k * 53) % 97) * 0.02;
  }
  s2p::field<2, double> A(a.data(), {kRows, kColumns}), B(b.data(), {kRows, kColumns});
  sections(3, A, B);
  sample::print_array("A", a.data(), a.size());
  sample::print_array("B", b.data(), b.size());

  constexpr int kLong = 150;
  std::vector<double> x(4 * kLong), y(4 * kLong, 0.0), totals(kLong, 1.0);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>((k * 29) % 83) * 0.03;
  s2p::field<2, double> X(x.data(), {4, kLong}), Y(y.data(), {4, kLong});
  s2p::field<1, double> T(totals.data(), {kLong});
  columns(3, X, Y, T);
  sample::print_array("X", x.data(), x.size());
  sample::print_array("Y", y.data(), y.size());
  sample::print_array("totals", totals.data(), totals.size());

  constexpr int kN = 16;
  std::vector<double> p(kN * kN), q(kN * kN, 0.0), s(4 * kN, 0.0);
  for (std::size_t k = 0; k < p.size(); ++k)
    p[k] = static_cast<double>((k * 41) % 89) * 0.05;
  s2p::field<2, double> P(p.data(), {kN, kN}), Q(q.data(), {kN, kN}), S(s.data(), {4, kN});
  transposed(P, Q, S);
  sample::print_array("P", p.data(), p.size());
  sample::print_array("Q", q.data(), q.size());
  sample::print_array("S", s.data(), s.size());
  return 0;
}
