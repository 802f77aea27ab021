// The fuzz generators' random numbers: SplitMix64, the same sequence on every platform
// (std distributions are not), so a seed names the same kernels everywhere.
#pragma once

#include <cstdint>

namespace s2p::fuzz {

class Random {
public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool chance(int percent) { return below(100) < percent; }

private:
  std::uint64_t state_;
};

// Kernel K of batch S depends only on (S, K): a failure found in a batch is regenerated alone.
inline std::uint64_t kernel_seed(std::uint64_t batch, int kernel) {
  Random mix(batch * 0x100000001b3ull + static_cast<std::uint64_t>(kernel));
  return mix.next();
}

} // namespace s2p::fuzz
