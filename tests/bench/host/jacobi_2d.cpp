// jacobi-2d for `scripts/bench host`, in the multi-tile form seq2par accepts today: each
// sweep is a kernel over the interior of the grid (a section of the n x n field) that reads
// the whole previous grid at the five stencil offsets; the host alternates the two grids.
// 16 tiles, rows dealt in bands. `jacobi_2d [n] [steps]` prints a checksum, the same on every
// backend, in the sequential build and in the plain loop of host_baselines.cpp; with
// S2P_BENCH_TIMING=1 also the sweeps' wall time on stderr ("kernel_seconds <s>").
#include <seq2par/seq2par.h>

#include "bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

S2P_KERNEL S2P_TILES(16) void sweep(s2p::field<2, double>& next, const s2p::field<2, double>& grid) {
  auto map = s2p::resource_map<2>::block(next.extent(), 16);
  auto grid_map = s2p::resource_map<2>::block(grid.extent(), 16);
  auto Nd = s2p::agile(next, map);
  auto Gd = s2p::agile(grid, grid_map);
  s2p::forall(Nd.extent(), [&](s2p::index<2> i) {
    Nd[i] = 0.2 * (Gd[{i[0] + 1, i[1] + 1}] + Gd[{i[0] + 1, i[1]}] + Gd[{i[0] + 1, i[1] + 2}] +
                   Gd[{i[0] + 2, i[1] + 1}] + Gd[{i[0], i[1] + 1}]);
  });
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 4;
  std::vector<double> a, b;
  bench::jacobi_inputs(n, a, b);
  const s2p::field<2, double> A(a.data(), {n, n}), B(b.data(), {n, n});
  const s2p::grid<2> interior{{n - 2, n - 2}, {1, 1}};
  s2p::field<2, double> inner_a = A.section(interior), inner_b = B.section(interior);
  const bench::clock clock;
  for (int t = 0; t < steps; ++t) {
    sweep(inner_b, A);
    sweep(inner_a, B);
  }
  clock.report();
  std::printf("jacobi-2d %d x %d, %d steps: checksum %.12e\n", n, n, steps, bench::checksum(a));
  return 0;
}
