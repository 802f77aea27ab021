// y = a * x + y, tile by tile: warp 0 loads, warp 1 computes, warp 2 stores.
#include "saxpy_config.h"
#include <seq2par/seq2par.h>

#include <cstdio>

S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}
S2P_INTRINSIC void axpy(s2p::in<float> x, s2p::inout<float> y, float a) {
  for (std::size_t k = 0; k < y.size(); ++k)
    y[k] = a * x[k] + y[k];
}
S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<float> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_KERNEL void saxpy(s2p::tensor_ref<float> x, s2p::tensor_ref<float> y, float a) {
  s2p::pool<float, 4 * kTile> smem;
  auto xs = smem.tensor<2, kTile>(0);
  auto ys = smem.tensor<2, kTile>(2 * kTile);
  for (int t = 0; t < kTiles; ++t) {
    S2P_WARP(0) load(x[t], xs[t % 2]);
    S2P_WARP(0) load(y[t], ys[t % 2]);
    S2P_WARP(1) axpy(xs[t % 2], ys[t % 2], a);
    S2P_WARP(2) store(ys[t % 2], y[t]);
  }
}

int main() {
  static float x[kTiles * kTile], y[kTiles * kTile];
  for (int i = 0; i < kTiles * kTile; ++i) {
    x[i] = static_cast<float>(i % 13);
    y[i] = static_cast<float>(i % 7) * 0.5f;
  }
  saxpy({x, kTiles, kTile}, {y, kTiles, kTile}, 2.5f);
  double sum = 0;
  for (float v : y)
    sum += v;
  std::printf("sum %a first %a last %a\n", sum, static_cast<double>(y[0]),
              static_cast<double>(y[kTiles * kTile - 1]));
}
