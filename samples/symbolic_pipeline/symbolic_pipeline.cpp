// A loop whose trip count is a kernel parameter stays a loop: warp 0 loads, warp 1
// transforms, warp 2 stores, over rings of three pool slots. The generated code is the
// same size for any n; slot indices (i % 3) become constants inside the loop's three
// unrolled iterations. A final expanded stage after the loop sums the last slot.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

constexpr int kTile = 32;

S2P_INTRINSIC void load(s2p::in<int> src, s2p::out<int> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void transform(s2p::in<int> src, s2p::out<int> dst, int round) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k] * 3 + round;
}

S2P_INTRINSIC void store(s2p::in<int> src, s2p::out<int> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void sum_all(s2p::in<int> slots, s2p::out<int> total) {
  long long s = 0;
  for (int v : slots)
    s += v;
  total[0] = static_cast<int>(s % 1000003);
}

S2P_KERNEL void stream(s2p::tensor_ref<int> in, s2p::tensor_ref<int> out,
                       s2p::tensor_ref<int> total, int n) {
  s2p::pool<int, 6 * kTile> smem;
  auto staged = smem.tensor<3, kTile>(0);
  auto results = smem.tensor<3, kTile>(3 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) load(in[i], staged[i % 3]);
    S2P_WARP(1) transform(staged[i % 3], results[i % 3], i);
    S2P_WARP(2) store(results[i % 3], out[i]);
  }
  S2P_WARP(1) sum_all(results.all(), total[0]);
}

int main() {
  for (int n : {0, 1, 2, 3, 4, 10, 1000, 10000}) {
    std::vector<int> in(n * kTile + 1), out(n * kTile + 1, -1);
    for (std::size_t k = 0; k < in.size(); ++k)
      in[k] = static_cast<int>(k * 7 % 101);
    int total = -1;
    stream({in.data(), static_cast<std::size_t>(n), kTile},
           {out.data(), static_cast<std::size_t>(n), kTile}, {&total, 1, 1}, n);
    std::printf("n=%d total=%d\n", n, total);
    sample::print_array("out", out.data(), n < 10 ? out.size() : 64);
  }
  return 0;
}
