// Kernels can be written with ordinary C++ structure: intrinsics that are function
// templates in a namespace, with a cost hint for the simulator (S2P_COST may use the
// parameters); helper stages in another namespace calling helpers of their own; an
// `if constexpr` stage; whole-tensor accesses (`t.all()`); scalar arguments computed from
// kernel parameters. seq2par spells names out in full where the generated code needs it.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

namespace lib {

template <class T> S2P_INTRINSIC S2P_COST(3 * dst.size()) void fill(s2p::out<T> dst, T value) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = value + static_cast<T>(k);
}

template <class T> S2P_INTRINSIC void accumulate(s2p::in<T> a, s2p::inout<T> acc) {
  sample::jitter();
  for (std::size_t k = 0; k < acc.size(); ++k)
    acc[k] += a[k % a.size()];
}

namespace {
void ping_pong(s2p::pool<double, 64>& p, int base, double scale) {
  auto halves = p.tensor<2, 16>(32);
  for (int k = 0; k < 2; ++k) {
    S2P_WARP(0) fill<double>(halves[k], scale * base);
    S2P_WARP(1) accumulate<double>(halves[k], halves[(k + 1) % 2]);
  }
}
} // namespace

static void stage(s2p::pool<double, 64>& p, int base, double scale) {
  ping_pong(p, base + 1, scale);
  if constexpr (sizeof(double) == 8) {
    auto low = p.tensor<1, 32>(0);
    S2P_WARP(2) fill<double>(low.all(), 1.5 * base);
  }
}

} // namespace lib

namespace app {

S2P_KERNEL void layered(s2p::tensor_ref<double> out, double scale) {
  s2p::pool<double, 64> p;
  const int offset = 2;
  const double factor = scale * 2;
  auto all = p.tensor<1, 64>(0);
  for (int r = 0; r < 3; ++r)
    lib::stage(p, r + offset, factor);
  S2P_WARP(0) lib::accumulate<double>(all[0], out[0]);
}

} // namespace app

int main() {
  double out[64] = {};
  for (int run = 0; run < 4; ++run)
    app::layered({out, 1, 64}, 0.5 + run);
  sample::print_array("out", out, 64);
  return 0;
}
