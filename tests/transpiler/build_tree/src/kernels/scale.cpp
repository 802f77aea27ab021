#include <seq2par/seq2par.h>

#include <cstdio>

S2P_INTRINSIC void fill(s2p::out<int> b, int v) {
  for (auto& x : b)
    x = v * 3 + 1;
}
S2P_INTRINSIC void twice(s2p::in<int> a, s2p::out<int> b) {
  for (std::size_t k = 0; k < a.size(); ++k)
    b[k] = a[k] * 2;
}
S2P_KERNEL void scale(s2p::tensor_ref<int> out) {
  s2p::pool<int, 8> smem;
  auto t = smem.tensor<2, 4>(0);
  for (int i = 0; i < 4; ++i) {
    S2P_WARP(0) fill(t[i % 2], i);
    S2P_WARP(1) twice(t[i % 2], out[i]);
  }
}
void run_scale() {
  int o[16] = {};
  scale({o, 4, 4});
  for (int v : o)
    std::printf("%d ", v);
  std::printf("\n");
}
