// Index arithmetic seq2par folds at transpile time must follow C++ exactly: unsigned
// wrap-around, unsigned division, narrowing conversions, unsigned pool coordinates.
// Before exact folding, `i - 1` with unsigned i became -1 (sequential: 4294967295),
// `7u / (i - 9)` became -2, and `(i - 1) % 5 + 1` picked the wrong pool slot.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <cstdint>

constexpr unsigned kSteps = 8;

S2P_INTRINSIC void gen(s2p::out<std::uint64_t> slot, unsigned a, unsigned b, unsigned char c,
                       long long d) {
  sample::jitter();
  for (std::size_t k = 0; k < slot.size(); ++k)
    slot[k] = (std::uint64_t{a} * 31 + b) * 131 + c * 7 + static_cast<std::uint64_t>(d) + k;
}

S2P_INTRINSIC void add_into(s2p::in<std::uint64_t> slot, s2p::inout<std::uint64_t> acc) {
  sample::jitter();
  for (std::size_t k = 0; k < slot.size(); ++k)
    acc[0] = acc[0] * 1099511628211ull + slot[k];
}

S2P_KERNEL void integer_semantics(s2p::tensor_ref<std::uint64_t> out) {
  s2p::pool<std::uint64_t, 6 * 4> smem;
  auto slots = smem.tensor<6, 4>(0);
  for (unsigned i = 0; i < kSteps; ++i) {
    // Slot (i - 1) % 5 + 1 wraps at i = 0 (to 0 % 5 + 1 = 1 for 32-bit unsigned).
    S2P_WARP(0) gen(slots[(i - 1) % 5 + 1], i - 1, 7u / (i - 9),
                    static_cast<unsigned char>(i * 100 + 50), static_cast<int>(i) - 5);
    S2P_WARP(1) add_into(slots[(i - 1) % 5 + 1], out[i % 2]);
  }
}

int main() {
  std::uint64_t out[2] = {};
  for (unsigned run = 0; run < kSteps / 4 + 1; ++run)
    integer_semantics({out, 2, 1});
  sample::print_array("out", out, 2);
  return 0;
}
