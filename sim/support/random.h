// A small, fully specified random generator. std::mt19937 plus <random> distributions would
// differ between standard libraries; this gives the same numbers everywhere, so a seed names
// one run on every machine.
#pragma once

#include <cstdint>

namespace s2p::sim::detail {

[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// xoshiro256** seeded through splitmix64.
class Random {
public:
  explicit Random(std::uint64_t seed) {
    for (auto& word : state_) {
      seed = splitmix64(seed);
      word = seed;
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n] (n + 1 values); tiny modulo bias is irrelevant for jitter.
  std::uint64_t up_to(std::uint64_t n) { return n == UINT64_MAX ? next() : next() % (n + 1); }

private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4] = {};
};

} // namespace s2p::sim::detail
