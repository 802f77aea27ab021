// The warp-split worked example (Fig. 3), runnable: three stages over one pool of 60 floats whose tensors alias
// (buffer3 reuses buffer1's and buffer2's memory). Producers on warp 0, consumers on warp 1.
// The consumer folds everything it sees, in order, into a checksum: if a consumer ran
// before its producer, or a producer overwrote a buffer still being read, it would change.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

namespace {
std::uint64_t produced = 0;                      // touched by warp 0 only
std::uint64_t checksum = 1469598103934665603ull; // touched by warp 1 only
std::uint64_t consumed = 0;
} // namespace

S2P_INTRINSIC void intrinsic_producer(s2p::out<float> b) {
  sample::jitter();
  for (std::size_t k = 0; k < b.size(); ++k)
    b[k] = static_cast<float>(++produced % 1000) * 0.5f;
}

S2P_INTRINSIC void intrinsic_consumer(s2p::in<float> b) {
  sample::jitter();
  checksum = sample::fnv1a(checksum, b.data(), b.size() * sizeof(float));
  consumed += b.size();
}

static void stage3(s2p::pool<float, 60>& smem) {
  auto buffer3 = smem.tensor<1, 50>(0);
#pragma s2p warp(0)
  intrinsic_producer(buffer3[0]);
#pragma s2p warp(1)
  intrinsic_consumer(buffer3[0]);
}

S2P_KERNEL void fig3_pipeline() {
  s2p::pool<float, 60> smem;
  auto buffer1 = smem.tensor<3, 10>(0);
  auto buffer2 = smem.tensor<3, 15>(15);
  for (int i = 0; i < 3; i++) { // stage 1
#pragma s2p warp(0)
    intrinsic_producer(buffer1[i]);
#pragma s2p warp(1)
    intrinsic_consumer(buffer1[i]);
  }
  for (int i = 0; i < 3; i++) { // stage 2
#pragma s2p warp(0)
    intrinsic_producer(buffer2[i]);
#pragma s2p warp(1)
    intrinsic_consumer(buffer2[i]);
  }
  stage3(smem); // stage 3: a function
}

int main() {
  for (int run = 0; run < 20; ++run)
    fig3_pipeline();
  std::printf("produced %llu elements, consumed %llu, checksum %016llx\n",
              static_cast<unsigned long long>(produced), static_cast<unsigned long long>(consumed),
              static_cast<unsigned long long>(checksum));
  return 0;
}
