// Read-only tables every tile reads, held on a few master tiles instead of on every tile.
//
// Three stages over 4800 quantized activations (codes 0..4095) spread block-cyclically over 12
// tiles: each stage maps every code through its own 16 KiB lookup table (a sampled sigmoid,
// tanh and softplus) and scales it by one of 8 per-channel gains. The index into a table is
// data (the code), so no tile knows in advance which entries it reads: every tile needs the
// whole table. Without S2P_SHARED every tile would hold all three tables for the whole kernel
// (48 KiB each); with it seq2par's runtime plans the kernel's memory: each big table sits on one
// master tile (fewer than a third of the tiles) and is multicast to the others just before the
// stage that reads it, into one address the receivers reuse for the next stage's table. The
// 32-byte gain table is cheaper to replicate than to send (its exchange code is larger), so
// every tile keeps it. S2P_SUMMARY=1 prints each decision and the peak tile memory;
// S2P_SHARED_STRUCTURES=replicate runs the replicated layout for comparison (scripts/bench
// memory prints both).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cmath>
#include <vector>

namespace {
constexpr int kTiles = 12;
constexpr int kCodes = 4096;   // table entries
constexpr int kSamples = 4800; // activations
constexpr int kChannels = 8;   // gains
} // namespace

S2P_KERNEL S2P_TILES(12) void shared_table(s2p::field<1, float>& sig, s2p::field<1, float>& th,
                                           s2p::field<1, float>& soft,
                                           const s2p::field<1, int>& codes,
                                           S2P_SHARED const s2p::field<1, float>& sigmoid,
                                           S2P_SHARED const s2p::field<1, float>& tanh_table,
                                           S2P_SHARED const s2p::field<1, float>& softplus,
                                           S2P_SHARED const s2p::field<1, float>& gain) {
  auto map = s2p::resource_map<1>::block_cyclic(codes.extent(), {100}, kTiles);
  auto Cd = s2p::agile(codes, map);
  auto Sd = s2p::agile(sig, map);
  auto Td = s2p::agile(th, map);
  auto Pd = s2p::agile(soft, map);
  s2p::forall(Sd.extent(), [&](s2p::index<1> i) {
    Sd[i] = sigmoid[{Cd[i]}] * gain[{i[0] % kChannels}];
  });
  s2p::forall(Td.extent(), [&](s2p::index<1> i) {
    Td[i] = tanh_table[{Cd[i]}] * gain[{i[0] % kChannels}];
  });
  s2p::forall(Pd.extent(), [&](s2p::index<1> i) {
    Pd[i] = softplus[{Cd[i]}] * gain[{i[0] % kChannels}];
  });
}

int main() {
  std::vector<int> codes(kSamples);
  for (int k = 0; k < kSamples; ++k)
    codes[static_cast<std::size_t>(k)] = (k * 2654435761U) % kCodes;
  std::vector<float> sigmoid(kCodes), tanh_table(kCodes), softplus(kCodes), gain(kChannels);
  for (int c = 0; c < kCodes; ++c) {
    const double x = (c - kCodes / 2) / 256.0; // codes sample [-8, 8)
    sigmoid[static_cast<std::size_t>(c)] = static_cast<float>(1.0 / (1.0 + std::exp(-x)));
    tanh_table[static_cast<std::size_t>(c)] = static_cast<float>(std::tanh(x));
    softplus[static_cast<std::size_t>(c)] = static_cast<float>(std::log1p(std::exp(x)));
  }
  for (int g = 0; g < kChannels; ++g)
    gain[static_cast<std::size_t>(g)] = 0.5f + 0.125f * static_cast<float>(g);
  std::vector<float> sig(kSamples), th(kSamples), soft(kSamples);
  s2p::field<1, float> S(sig.data(), {kSamples}), T(th.data(), {kSamples}),
      P(soft.data(), {kSamples});
  shared_table(S, T, P, s2p::field<1, int>(codes.data(), {kSamples}),
               s2p::field<1, float>(sigmoid.data(), {kCodes}),
               s2p::field<1, float>(tanh_table.data(), {kCodes}),
               s2p::field<1, float>(softplus.data(), {kCodes}),
               s2p::field<1, float>(gain.data(), {kChannels}));
  sample::print_array("sigmoid", sig.data(), sig.size());
  sample::print_array("tanh", th.data(), th.size());
  sample::print_array("softplus", soft.data(), soft.size());
  return 0;
}
