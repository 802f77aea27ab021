// What the host benchmark programs share: their inputs (the same in the seq2par program and in
// its plain and OpenMP baselines), the kernel's wall time on stderr when S2P_BENCH_TIMING=1
// ("kernel_seconds <s>", read by scripts/bench.d/host), and a checksum of a result that every
// build of the same computation prints identically.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

class clock {
public:
  void report() const {
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start_;
    if (const char* timing = std::getenv("S2P_BENCH_TIMING"); timing && *timing == '1')
      std::fprintf(stderr, "kernel_seconds %.6f\n", seconds.count());
  }

private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// jacobi-2d's two n x n grids, row-major.
inline void jacobi_inputs(int n, std::vector<double>& a, std::vector<double>& b) {
  a.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
  b.assign(a.size(), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a[static_cast<std::size_t>(i * n + j)] = (static_cast<double>(i) * (j + 2) + 2) / n;
      b[static_cast<std::size_t>(i * n + j)] = (static_cast<double>(i) * (j + 3) + 3) / n;
    }
}

// gemm's A, B and C, n x n, row-major.
inline void gemm_inputs(int n, std::vector<double>& a, std::vector<double>& b,
                        std::vector<double>& c) {
  a.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
  b.assign(a.size(), 0.0);
  c.assign(a.size(), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(i * n + j);
      a[k] = static_cast<double>((i * j + 1) % n) / n;
      b[k] = static_cast<double>((i * (j + 1) + 2) % n) / n;
      c[k] = static_cast<double>((i * (j + 2) + 3) % n) / n;
    }
}

// Weighted so that a permutation of the result changes it.
inline double checksum(const std::vector<double>& values) {
  double sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k)
    sum += values[k] * static_cast<double>(k % 7 + 1);
  return sum;
}

} // namespace bench
