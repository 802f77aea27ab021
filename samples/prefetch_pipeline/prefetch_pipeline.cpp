// A hand-pipelined kernel: the loads run two tiles ahead of the compute, into a ring of
// three pool slots. The prologue loads tiles 0 and 1; iteration k computes tile k from slot
// k % 3 and prefetches tile k + 2 into slot (k + 2) % 3 -- the slot tile k - 1 used --
// while there is one (`if (k + 2 < kTiles)`). The condition reads only the loop index and
// constants, so seq2par resolves it per iteration: the last two iterations have no load.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

constexpr int kTiles = 16;
constexpr int kTile = 64;

S2P_INTRINSIC void load(s2p::in<float> src, s2p::out<float> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

// Compute costs three times a load on the simulator.
S2P_INTRINSIC S2P_COST(3 * tile.size()) void smooth(s2p::in<float> tile, s2p::out<float> dst,
                                                     int index) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k) {
    const float left = tile[k == 0 ? 0 : k - 1];
    const float right = tile[k + 1 == tile.size() ? k : k + 1];
    dst[k] = 0.25f * left + 0.5f * tile[k] + 0.25f * right + static_cast<float>(index);
  }
}

S2P_KERNEL void prefetch_pipeline(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out) {
  s2p::pool<float, 3 * kTile> smem;
  auto ring = smem.tensor<3, kTile>(0);
  S2P_WARP(0) load(in[0], ring[0]);
  S2P_WARP(0) load(in[1], ring[1]);
  for (int k = 0; k < kTiles; ++k) {
    S2P_WARP(1) smooth(ring[k % 3], out[k], k);
    if (k + 2 < kTiles) {
      S2P_WARP(0) load(in[k + 2], ring[(k + 2) % 3]);
    }
  }
}

int main() {
  std::vector<float> in(kTiles * kTile), out(kTiles * kTile, -1.0f);
  for (int k = 0; k < kTiles * kTile; ++k)
    in[k] = static_cast<float>((k * 13) % 101) * 0.125f;
  for (int run = 0; run < 4; ++run)
    prefetch_pipeline({in.data(), kTiles, kTile}, {out.data(), kTiles, kTile});
  sample::print_array("out", out.data(), out.size());
  return 0;
}
