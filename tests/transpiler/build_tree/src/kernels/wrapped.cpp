#include "project/kernel_macros.h"

#include <cstdio>

S2P_INTRINSIC void load(s2p::in<int> a, s2p::out<int> b) {
  for (std::size_t k = 0; k < a.size(); ++k)
    b[k] = a[k] - 5;
}
S2P_INTRINSIC void store(s2p::in<int> a, s2p::out<int> b) {
  for (std::size_t k = 0; k < a.size(); ++k)
    b[k] = a[k] * a[k];
}
PROJECT_KERNEL void wrapped(s2p::tensor_ref<int> in, s2p::tensor_ref<int> out) {
  s2p::pool<int, 6> smem;
  auto t = smem.tensor<3, 2>(0);
  for (int i = 0; i < 5; ++i) {
    S2P_WARP(0) load(in[i], t[i % 3]);
    S2P_WARP(1) store(t[i % 3], out[i]);
  }
}
void run_wrapped() {
  int in[10], out[10] = {};
  for (int k = 0; k < 10; ++k)
    in[k] = k * 7;
  wrapped({in, 5, 2}, {out, 5, 2});
  for (int v : out)
    std::printf("%d ", v);
  std::printf("\n");
}
