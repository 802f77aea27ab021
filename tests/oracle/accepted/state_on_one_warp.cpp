// What the access model accepts around intrinsics: state an intrinsic keeps outside its
// arguments when every call reaching it runs on one warp (a warp keeps program order),
// plain values by const reference, a constexpr function as an argument (once reported as
// "has side effects"), and a tensor_ref index with a run-time term (`in[n - 1 - i]`, once
// refused as depending on n).
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <cstdint>

struct Weights {
  std::int64_t a, b;
};

std::uint64_t produced = 0; // only warp 0's intrinsic touches it

constexpr std::int64_t twice(std::int64_t v) {
  return 2 * v;
}

S2P_INTRINSIC void produce(s2p::in<std::int64_t> src, s2p::out<std::int64_t> slot,
                           const Weights& w, std::int64_t bias) {
  sample::jitter();
  for (std::size_t k = 0; k < slot.size(); ++k)
    slot[k] = src[k] * w.a + w.b + bias + static_cast<std::int64_t>(++produced % 7);
}

S2P_INTRINSIC void consume(s2p::in<std::int64_t> slot, s2p::out<std::int64_t> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < slot.size(); ++k)
    dst[k] = slot[k] * 3 + 1;
}

S2P_KERNEL void reverse_pipeline(s2p::tensor_ref<std::int64_t> in,
                                 s2p::tensor_ref<std::int64_t> out, int n) {
  s2p::pool<std::int64_t, 3 * 8> smem;
  auto ring = smem.tensor<3, 8>(0);
  const Weights w{3, -5};
  for (int i = 0; i < 6; ++i) {
    S2P_WARP(0) produce(in[n - 1 - i], ring[i % 3], w, twice(21));
    S2P_WARP(1) consume(ring[i % 3], out[i]);
  }
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) produce(in[n - 1 - i], ring[i % 3], w, twice(4));
    S2P_WARP(1) consume(ring[i % 3], out[n + i]);
  }
}

int main() {
  constexpr int n = 9;
  std::int64_t in[n * 8], out[2 * n * 8] = {};
  for (int k = 0; k < n * 8; ++k)
    in[k] = k * 7 - 30;
  for (int run = 0; run < 3; ++run)
    reverse_pipeline({in, n, 8}, {out, 2 * n, 8}, n);
  sample::print_array("out", out, 2 * n * 8);
  return 0;
}
