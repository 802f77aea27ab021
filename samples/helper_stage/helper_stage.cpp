// Stages written as helper functions: seq2par inlines them as branches of the schedule
// tree. The helper takes the pool, a tensor_ref and integer indices; it declares its own
// tensor, and is called twice, once from inside a loop with an index argument. A warp
// pragma on the call applies to the helper's calls that have none of their own.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

constexpr int kBlock = 8;

S2P_INTRINSIC void generate(s2p::out<long> dst, int seed) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = seed * 31 + static_cast<long>(k * k);
}

S2P_INTRINSIC void scale_into(s2p::in<long> src, s2p::out<long> dst, long factor) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k] * factor;
}

static void produce_and_scale(s2p::pool<long, 4 * kBlock>& mem, s2p::tensor_ref<long> out,
                              int block, long factor) {
  auto slots = mem.tensor<2, kBlock>(0);
  for (int half = 0; half < 2; ++half) {
#pragma s2p warp(0)
    generate(slots[half], block * 2 + half);
    scale_into(slots[half], out[block * 2 + half], factor);
  }
}

S2P_KERNEL void helper_stages(s2p::tensor_ref<long> out, long factor) {
  s2p::pool<long, 4 * kBlock> mem;
  for (int block = 0; block < 3; ++block) {
#pragma s2p warp(1)
    produce_and_scale(mem, out, block, factor + block);
  }
#pragma s2p warp(2)
  produce_and_scale(mem, out, 3, 1);
}

int main() {
  std::vector<long> out(8 * kBlock, 0);
  for (int run = 0; run < 5; ++run)
    helper_stages({out.data(), 8, kBlock}, 3);
  sample::print_array("out", out.data(), out.size());
  return 0;
}
