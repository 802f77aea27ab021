// One producer, two consumers on two other warps reading the same slot of a two-slot
// ring: the producer may refill a slot only after both readers released it.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

constexpr int kSteps = 10;
constexpr int kSize = 32;

S2P_INTRINSIC void produce(s2p::out<unsigned> slot, int step) {
  sample::jitter();
  for (std::size_t k = 0; k < slot.size(); ++k)
    slot[k] = static_cast<unsigned>(step * 7919 + k * 13);
}

S2P_INTRINSIC void sum_reader(s2p::in<unsigned> slot, s2p::out<unsigned> result) {
  sample::jitter();
  unsigned s = 0;
  for (unsigned v : slot)
    s += v;
  result[0] = s;
}

S2P_INTRINSIC void xor_reader(s2p::in<unsigned> slot, s2p::out<unsigned> result) {
  sample::jitter();
  unsigned x = 0;
  for (unsigned v : slot)
    x ^= v * 2654435761u;
  result[0] = x;
}

S2P_KERNEL void two_readers(s2p::tensor_ref<unsigned> sums, s2p::tensor_ref<unsigned> xors) {
  s2p::pool<unsigned, 2 * kSize> smem;
  auto ring = smem.tensor<2, kSize>(0);
  for (int step = 0; step < kSteps; ++step) {
    S2P_WARP(0) produce(ring[step % 2], step);
    S2P_WARP(1) sum_reader(ring[step % 2], sums[step]);
    S2P_WARP(2) xor_reader(ring[step % 2], xors[step]);
  }
}

int main() {
  unsigned sums[kSteps] = {}, xors[kSteps] = {};
  for (int run = 0; run < 5; ++run)
    two_readers({sums, kSteps, 1}, {xors, kSteps, 1});
  sample::print_array("sums", sums, kSteps);
  sample::print_array("xors", xors, kSteps);
  return 0;
}
