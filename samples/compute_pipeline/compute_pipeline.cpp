// A compute-bound two-warp pipeline (the threads speed-up benchmark): warp 0 synthesizes
// a block of a signal, warp 1 filters it, over a triple-buffered ring. Both stages do the
// same amount of trigonometry per element, so two cores can overlap them almost completely.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cmath>
#include <cstdlib>
#include <vector>

constexpr int kBlocks = 96;
constexpr int kBlock = 1024;

namespace {
int work_factor() {
  const char* env = std::getenv("S2P_SAMPLE_WORK");
  return env ? std::atoi(env) : 8;
}
} // namespace

S2P_INTRINSIC void synthesize(s2p::out<float> block, int index) {
  const int rounds = work_factor();
  for (std::size_t k = 0; k < block.size(); ++k) {
    float x = static_cast<float>((index * kBlock + static_cast<int>(k)) % 1000) * 1e-3f;
    for (int r = 0; r < rounds; ++r)
      x = std::sin(x) * 0.5f + std::cos(x * 0.75f) * 0.25f + 0.05f;
    block[k] = x;
  }
}

S2P_INTRINSIC void filter(s2p::in<float> block, s2p::out<float> result) {
  const int rounds = work_factor();
  float acc = 0;
  for (std::size_t k = 0; k < block.size(); ++k) {
    float y = block[k];
    for (int r = 0; r < rounds; ++r)
      y = std::sin(y) * 0.5f + std::cos(y * 0.75f) * 0.25f + 0.05f;
    acc += y;
  }
  result[0] = acc;
}

S2P_KERNEL void compute_pipeline(s2p::tensor_ref<float> results) {
  s2p::pool<float, 3 * kBlock> smem;
  auto ring = smem.tensor<3, kBlock>(0);
  for (int b = 0; b < kBlocks; ++b) {
    S2P_WARP(0) synthesize(ring[b % 3], b);
    S2P_WARP(1) filter(ring[b % 3], results[b]);
  }
}

int main() {
  std::vector<float> results(kBlocks, 0.0f);
  compute_pipeline({results.data(), kBlocks, 1});
  sample::print_array("results", results.data(), results.size());
  return 0;
}
