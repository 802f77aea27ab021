// `unsigned char i < n` with n = 300: the variable wraps from 255 to 0 and the sequential
// loop never ends. The loop's trip count is a kernel parameter, so seq2par keeps it a loop;
// the generated program refuses the bound its type cannot reach instead of running 299
// iterations (found by the acceptance fuzzer).
#include <seq2par/seq2par.h>

#include <cstdio>

S2P_INTRINSIC void fill(s2p::out<long> slot, int v) {
  for (auto& x : slot)
    x = v;
}
S2P_INTRINSIC void drain(s2p::in<long> slot, s2p::inout<long> sum) {
  sum[0] += slot[0];
}

S2P_KERNEL void narrow(s2p::tensor_ref<long> sum, int n) {
  s2p::pool<long, 2 * 4> smem;
  auto ring = smem.tensor<2, 4>(0);
  for (unsigned char i = 1; i < n; ++i) {
    S2P_WARP(0) fill(ring[i % 2], i);
    S2P_WARP(1) drain(ring[i % 2], sum[0]);
  }
}

int main(int argc, char**) {
  long sum = 0;
  narrow({&sum, 1, 1}, argc > 1 ? 100 : 300); // the sequential build would never return
  std::printf("%ld\n", sum);
}
// EXPECT-RUNTIME: loop 'i' (unsigned char) would step past the range of its type
