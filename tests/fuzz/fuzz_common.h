// What the fuzz generators share: their random numbers (SplitMix64, the same sequence on
// every platform, which std distributions are not, so a seed names the same kernels
// everywhere), their command line, and the checksum the generated programs print.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

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

// Kernels [first, last) of batch `seed`, to be written to `output`.
struct BatchRequest {
  std::uint64_t seed = 0;
  int first = 0, last = 0;
  std::string output;
};

// `tool --seed S (--count N | --kernel K) -o file.cpp`; on a bad command line prints the usage
// and returns nothing.
inline std::optional<BatchRequest> parse_batch_request(int argc, char** argv, const char* tool) {
  BatchRequest request;
  int count = -1, only = -1;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      return a + 1 < argc ? argv[++a] : "";
    };
    if (arg == "--seed")
      request.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--count")
      count = std::atoi(value().c_str());
    else if (arg == "--kernel")
      only = std::atoi(value().c_str());
    else if (arg == "-o")
      request.output = value();
    else
      count = only = -1; // unknown argument
  }
  if (request.output.empty() || (count < 0) == (only < 0)) {
    std::cerr << "usage: " << tool << " --seed S (--count N | --kernel K) -o file.cpp\n";
    return std::nullopt;
  }
  request.first = only >= 0 ? only : 0;
  request.last = only >= 0 ? only + 1 : count;
  return request;
}

// The checksum generated programs print for what a kernel wrote (source text, FNV-1a).
inline constexpr const char* kChecksumSource =
    R"(unsigned checksum(const std::vector<unsigned>& v) {
  unsigned h = 2166136261u;
  for (unsigned x : v) h = (h ^ x) * 16777619u;
  return h;
}
)";

} // namespace s2p::fuzz
