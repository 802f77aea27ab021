// jacobi-2d with PolyBench's time loop inside the kernel, for `scripts/bench host`: each step
// sweeps A's interior into B's and B's back into A's (foralls over interior sections, reading
// the whole grids). 16 tiles, rows dealt in bands. Beside jacobi_2d.cpp (one kernel call per sweep,
// the host's loop around them) it shows what a kernel that owns its time loop gains: on mpi the
// steps' results stay on the ranks, which exchange one row per neighbour per step and gather
// the grids once, when the kernel returns. `jacobi_2d_nest [n] [steps]` prints the same checksum
// as jacobi_2d and the plain loop of host_baselines.cpp; with S2P_BENCH_TIMING=1 also the
// kernel's wall time on stderr ("kernel_seconds <s>").
#include <seq2par/seq2par.h>

#include "bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

S2P_KERNEL S2P_TILES(16) void jacobi_2d(int steps, s2p::field<2, double>& A,
                                        s2p::field<2, double>& B) {
  const auto n = A.extent()[0];
  const s2p::grid<2> interior{{n - 2, n - 2}, {1, 1}};
  auto inner_a = A.section(interior);
  auto inner_b = B.section(interior);
  auto map = s2p::resource_map<2>::block(A.extent(), 16);
  auto inner_map = s2p::resource_map<2>::block(inner_a.extent(), 16);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Ai = s2p::agile(inner_a, inner_map);
  auto Bi = s2p::agile(inner_b, inner_map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bi.extent(), [&](s2p::index<2> i) {
      Bi[i] = 0.2 * (Ad[{i[0] + 1, i[1] + 1}] + Ad[{i[0] + 1, i[1]}] + Ad[{i[0] + 1, i[1] + 2}] +
                     Ad[{i[0] + 2, i[1] + 1}] + Ad[{i[0], i[1] + 1}]);
    });
    s2p::forall(Ai.extent(), [&](s2p::index<2> i) {
      Ai[i] = 0.2 * (Bd[{i[0] + 1, i[1] + 1}] + Bd[{i[0] + 1, i[1]}] + Bd[{i[0] + 1, i[1] + 2}] +
                     Bd[{i[0] + 2, i[1] + 1}] + Bd[{i[0], i[1] + 1}]);
    });
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 4;
  std::vector<double> a, b;
  bench::jacobi_inputs(n, a, b);
  s2p::field<2, double> A(a.data(), {n, n}), B(b.data(), {n, n});
  const bench::clock clock;
  jacobi_2d(steps, A, B);
  clock.report();
  std::printf("jacobi-2d %d x %d, %d steps: checksum %.12e\n", n, n, steps, bench::checksum(a));
  return 0;
}
