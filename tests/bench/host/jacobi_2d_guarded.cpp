// jacobi-2d as PolyBench writes it, for `scripts/bench host`: the time loop inside the kernel
// and each sweep over the whole grid with the boundary test inside the body
// (`if (0 < i < n - 1 && 0 < j < n - 1)`), the form users write first. The sequential build
// tests the guard at every index, so its loop does not vectorize; where a forall runs in place
// (threads, mpi) seq2par runs the index over the guard's box and the body without the test.
// `jacobi_2d_guarded [n] [steps]` prints the same checksum as jacobi_2d and the plain loop of
// host_baselines.cpp; with S2P_BENCH_TIMING=1 also the kernel's wall time on stderr.
#include <seq2par/seq2par.h>

#include "bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

S2P_KERNEL S2P_TILES(16) void jacobi_2d(int steps, s2p::field<2, double>& A,
                                        s2p::field<2, double>& B) {
  const auto n = A.extent()[0];
  auto map = s2p::resource_map<2>::block(A.extent(), 16);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  for (int t = 0; t < steps; ++t) {
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      if (i[0] > 0 && i[0] < n - 1 && i[1] > 0 && i[1] < n - 1)
        Bd[i] = 0.2 * (Ad[i] + Ad[{i[0], i[1] - 1}] + Ad[{i[0], i[1] + 1}] +
                       Ad[{i[0] + 1, i[1]}] + Ad[{i[0] - 1, i[1]}]);
    });
    s2p::forall(Ad.extent(), [&](s2p::index<2> i) {
      if (i[0] > 0 && i[0] < n - 1 && i[1] > 0 && i[1] < n - 1)
        Ad[i] = 0.2 * (Bd[i] + Bd[{i[0], i[1] - 1}] + Bd[{i[0], i[1] + 1}] +
                       Bd[{i[0] + 1, i[1]}] + Bd[{i[0] - 1, i[1]}]);
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
