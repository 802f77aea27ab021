// Three views of one pool that alias: quarters, halves and the whole. Writes through one
// view and reads through another must still be ordered (data edges follow memory, not
// names), and every reuse of memory waits for the readers of what was there.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

S2P_INTRINSIC void write_quarter(s2p::out<double> q, int tag) {
  sample::jitter();
  for (std::size_t k = 0; k < q.size(); ++k)
    q[k] = tag + 0.125 * static_cast<double>(k);
}

S2P_INTRINSIC void sum_half(s2p::in<double> h, s2p::out<double> result) {
  sample::jitter();
  double s = 0;
  for (double v : h)
    s += v;
  result[0] = s;
}

S2P_INTRINSIC void negate_all(s2p::inout<double> w) {
  sample::jitter();
  for (auto& v : w)
    v = -v;
}

S2P_KERNEL void aliasing(s2p::tensor_ref<double> results) {
  s2p::pool<double, 40> smem;
  auto quarters = smem.tensor<4, 10>(0);
  auto halves = smem.tensor<2, 20>(0);
  auto whole = smem.tensor<1, 40>(0);
  for (int round = 0; round < 3; ++round) {
    for (int q = 0; q < 4; ++q) {
#pragma s2p warp(0)
      write_quarter(quarters[q], round * 10 + q);
    }
#pragma s2p warp(2)
    negate_all(whole[0]);
    for (int h = 0; h < 2; ++h) {
#pragma s2p warp(1)
      sum_half(halves[h], results[round * 2 + h]);
    }
  }
}

int main() {
  double results[6] = {};
  for (int run = 0; run < 5; ++run)
    aliasing({results, 6, 1});
  sample::print_array("results", results, 6);
  return 0;
}
