// A four-warp pipeline over a ring of three pool slots per stream:
//   warp 0 loads A tiles, warp 1 loads B tiles, warp 2 computes C = A * B + A,
//   warp 3 stores C tiles. Slot i % 3 is reused every third step, so loads must wait
// until compute has released the slot and compute until store has drained its output.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

constexpr int kTiles = 12;
constexpr int kTile = 64;

S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void multiply_add(s2p::in<float> a, s2p::in<float> b, s2p::out<float> c) {
  sample::jitter();
  for (std::size_t k = 0; k < c.size(); ++k)
    c[k] = a[k] * b[k] + a[k];
}

S2P_INTRINSIC void store(s2p::in<float> src, s2p::out<float> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_KERNEL void ring_pipeline(s2p::tensor_ref<float> a, s2p::tensor_ref<float> b,
                              s2p::tensor_ref<float> c) {
  s2p::pool<float, 9 * kTile> smem;
  auto a_slots = smem.tensor<3, kTile>(0);
  auto b_slots = smem.tensor<3, kTile>(3 * kTile);
  auto c_slots = smem.tensor<3, kTile>(6 * kTile);
  for (int i = 0; i < kTiles; ++i) {
    S2P_WARP(0) load(a[i], a_slots[i % 3]);
    S2P_WARP(1) load(b[i], b_slots[i % 3]);
    S2P_WARP(2) multiply_add(a_slots[i % 3], b_slots[i % 3], c_slots[i % 3]);
    S2P_WARP(3) store(c_slots[i % 3], c[i]);
  }
}

int main() {
  std::vector<float> a(kTiles * kTile), b(kTiles * kTile), c(kTiles * kTile, -1.0f);
  for (int k = 0; k < kTiles * kTile; ++k) {
    a[k] = static_cast<float>(k % 97) * 0.25f;
    b[k] = static_cast<float>((k * 7) % 31) - 15.0f;
  }
  for (int run = 0; run < 10; ++run)
    ring_pipeline({a.data(), kTiles, kTile}, {b.data(), kTiles, kTile}, {c.data(), kTiles, kTile});
  sample::print_array("c", c.data(), c.size());
  return 0;
}
