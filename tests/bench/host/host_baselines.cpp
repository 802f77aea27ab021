// What a user would pick instead of seq2par, for `scripts/bench host`: each benchmark kernel
// as the plain loop nest and as the same nest under OpenMP `parallel for` (static schedule,
// OMP_NUM_THREADS threads), and jacobi_2d_guarded's plain loop as that program writes it, over
// the whole grid with the boundary test in the body (`plain_guarded`).
// `host_baselines <kernel> plain|openmp|plain_guarded [args]` prints the line the
// kernel's seq2par program prints for the same arguments (the same operations in the same
// order per element, so the checksums agree exactly), and with S2P_BENCH_TIMING=1 the loop
// nest's wall time on stderr.
#include "bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// One point of a jacobi-2d sweep.
inline void jacobi_point(double* next, const double* grid, int n, int i, int j) {
  next[i * n + j] = 0.2 * (grid[i * n + j] + grid[i * n + j - 1] + grid[i * n + j + 1] +
                           grid[(i + 1) * n + j] + grid[(i - 1) * n + j]);
}

// PolyBench's jacobi-2d: `steps` pairs of sweeps over the interior, a into b, then b into a.
// `guarded`: each sweep over the whole grid with the boundary test in the body, the plain
// loop of the form jacobi_2d_guarded.cpp writes (sequential only).
void jacobi_2d(int n, int steps, bool parallel, bool guarded) {
  std::vector<double> a, b;
  bench::jacobi_inputs(n, a, b);
  double* const pa = a.data();
  double* const pb = b.data();
  const auto sweep = [n, parallel](double* next, const double* grid) {
#pragma omp parallel for schedule(static) if (parallel)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        jacobi_point(next, grid, n, i, j);
  };
  const auto guarded_sweep = [n](double* next, const double* grid) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
          jacobi_point(next, grid, n, i, j);
  };
  const bench::clock clock;
  if (guarded) {
    for (int t = 0; t < steps; ++t) {
      guarded_sweep(pb, pa);
      guarded_sweep(pa, pb);
    }
    clock.report();
    std::printf("jacobi-2d %d x %d, %d steps: checksum %.12e\n", n, n, steps, bench::checksum(a));
    return;
  }
  for (int t = 0; t < steps; ++t) {
    sweep(pb, pa);
    sweep(pa, pb);
  }
  clock.report();
  std::printf("jacobi-2d %d x %d, %d steps: checksum %.12e\n", n, n, steps, bench::checksum(a));
}

// C = C + A * B, rows of C in parallel, the k loop outside the j loop (as the kernel's blocks).
void gemm(int n, bool parallel) {
  std::vector<double> a, b, c;
  bench::gemm_inputs(n, a, b, c);
  const double* const pa = a.data();
  const double* const pb = b.data();
  double* const pc = c.data();
  const bench::clock clock;
#pragma omp parallel for schedule(static) if (parallel)
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double aik = pa[i * n + k];
      for (int j = 0; j < n; ++j)
        pc[i * n + j] += aik * pb[k * n + j];
    }
  clock.report();
  std::printf("gemm %d x %d: checksum %.12e\n", n, n, bench::checksum(c));
}

} // namespace

int main(int argc, char** argv) {
  const bool guarded = argc >= 3 && std::strcmp(argv[2], "plain_guarded") == 0;
  if (argc < 3 || (std::strcmp(argv[2], "plain") != 0 && std::strcmp(argv[2], "openmp") != 0 &&
                   !(guarded && std::strcmp(argv[1], "jacobi_2d_guarded") == 0))) {
    std::fprintf(stderr, "usage: host_baselines jacobi_2d|jacobi_2d_nest|jacobi_2d_guarded|gemm "
                         "plain|openmp [args], or jacobi_2d_guarded plain_guarded [args]\n");
    return 2;
  }
  const bool parallel = std::strcmp(argv[2], "openmp") == 0;
  // jacobi_2d_nest, jacobi_2d_guarded: the same loop nest (seq2par's program keeps the time
  // loop in the kernel; the guarded one tests the boundary in the body).
  if (std::strcmp(argv[1], "jacobi_2d") == 0 || std::strcmp(argv[1], "jacobi_2d_nest") == 0 ||
      std::strcmp(argv[1], "jacobi_2d_guarded") == 0) {
    jacobi_2d(argc > 3 ? std::atoi(argv[3]) : 64, argc > 4 ? std::atoi(argv[4]) : 4, parallel,
              guarded);
    return 0;
  }
  if (std::strcmp(argv[1], "gemm") == 0) {
    gemm(768, parallel);
    return 0;
  }
  std::fprintf(stderr, "host_baselines: unknown kernel '%s'\n", argv[1]);
  return 2;
}
