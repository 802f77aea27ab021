// What the host benchmark programs share: the kernel's wall time on stderr when
// S2P_BENCH_TIMING=1 ("kernel_seconds <s>", read by scripts/bench.d/host), and a checksum of a
// result that every build of the same computation prints identically.
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

// Weighted so that a permutation of the result changes it.
inline double checksum(const std::vector<double>& values) {
  double sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k)
    sum += values[k] * static_cast<double>(k % 7 + 1);
  return sum;
}

} // namespace bench
