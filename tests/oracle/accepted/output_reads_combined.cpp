// A forall that reads its own output at other indices, in combination: inside a loop around
// steps (the index is the loop's variable, a symbol of the relations), through a helper, next
// to a lower-rank read (the fields are lifted to one rank), and reading back an element its
// own iteration has just written through another index than its own (the output's view must
// give the new value, also to a task another tile stole), and a read at the loop variable
// minus one behind an `if` on the variable alone. tests/mpi runs it as a job too.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 24;

template <class View> double pivot_of(const View& a, int k) {
  return a[{k, k}];
}
} // namespace

S2P_KERNEL S2P_TILES(4) void output_reads(s2p::field<2, double>& A, s2p::field<1, double>& y,
                                          const s2p::field<1, double>& v) {
  auto map = s2p::resource_map<2>::block_cyclic(A.extent(), {1, A.extent()[1]}, 4);
  auto v_map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Ad = s2p::agile(A, map);
  auto Yd = s2p::agile(y, v_map);
  auto Vd = s2p::agile(v, v_map);
  const int n = A.extent()[0];
  for (int k = 0; k < n - 1; ++k) {
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] == k)
        Ad[i] = Ad[i] / pivot_of(Ad, k) + Vd[{i[0]}];
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > k && i[1] > k)
        Ad[i] -= Ad[{i[0], k}] * Ad[{k, i[1]}];
    });
    s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
      if (i[0] == k + 1) {
        Yd[i] = 2.0 * Yd[i] + Vd[i];
        // its own new value, the one step k wrote, and a rank-2 read (y is lifted to rank 2)
        Yd[i] += Yd[{k + 1}] + Yd[{k}] * Ad[{i[0], k}];
        if (k > 0) // not a bound on the index: at k = 0 the launch's map names element -1
          Yd[i] += Vd[{k - 1}];
      }
    });
  }
}

// The same reads where work stealing moves tasks: a map that deals blocks 6:1:1:1 to equally
// fast tiles, so that greedy stealing takes tasks from tile 0 (as in steal_inout.cpp). A stolen
// task reads the last element from the copies and reads back the element it has just written.
S2P_KERNEL S2P_TILES(4) void stolen_reads(s2p::field<1, double>& z) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {64}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Zd = s2p::agile(z, map);
  const int n = z.extent()[0];
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    if (i[0] < n - 1)
      Zd[i] = Zd[i] * 0.5 + Zd[{n - 1}];
  });
  for (int k = 5; k < n; k += 1021)
    s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
      Zd[i] += 1.0;
      if (i[0] == k)
        Zd[i] += Zd[{k}]; // the value this iteration has just written
    });
}

int main() {
  std::vector<double> a(kN * kN), y(kN), v(kN);
  for (int i = 0; i < kN; ++i) {
    for (int j = 0; j < kN; ++j)
      a[i * kN + j] = i == j ? kN + 1.0 : static_cast<double>((i * 7 + j * 3) % kN) / kN;
    y[i] = 1.0 + i % 3;
    v[i] = static_cast<double>(i % 5) / 8;
  }
  s2p::field<2, double> A(a.data(), {kN, kN});
  s2p::field<1, double> Y(y.data(), {kN}), V(v.data(), {kN});
  output_reads(A, Y, V);
  sample::print_array("A", a.data(), a.size());
  sample::print_array("y", y.data(), y.size());
  std::vector<double> z(8192);
  for (std::size_t k = 0; k < z.size(); ++k)
    z[k] = static_cast<double>(k % 29) / 4;
  s2p::field<1, double> Z(z.data(), {static_cast<std::int64_t>(z.size())});
  stolen_reads(Z);
  sample::print_array("z", z.data(), z.size());
  return 0;
}
