// A second composition of both levels: a per-tile warp pipeline whose results a collective
// then combines across tiles, the way batch-normalization statistics are computed.
//
// X holds a batch of 128 rows of 64 features, spread over 4 tiles by rows (tile t owns rows
// 32t .. 32t + 31), cut into 32 x 16 algorithmic blocks. Step 1 is a forall with one task per
// tile: a warp pipeline that streams the tile's four column blocks of X through a
// double-buffered pool (warp 0 loads), accumulates per-feature sums and sums of squares
// (warp 1), and stores them as the tile's row of S (warp 2). Step 2, an all_reduce over S,
// gives every tile the batch totals. The main program turns them into means and variances.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kTiles = 4;
constexpr int kRowsPerTile = 32;
constexpr int kFeatures = 64;
constexpr int kBlockFeatures = 16;                      // algorithmic block: 32 x 16
constexpr int kBlocks = kFeatures / kBlockFeatures;     // column blocks per tile
constexpr int kBlockElements = kRowsPerTile * kBlockFeatures;
constexpr int kStatistics = 2 * kFeatures;              // sums, then sums of squares
} // namespace

// A block of X into a pool slot, row-major.
S2P_INTRINSIC void load_block(s2p::in<s2p::field<2, float>> src, s2p::out<float> dst) {
  for (int i = 0; i < kRowsPerTile; ++i)
    for (int j = 0; j < kBlockFeatures; ++j)
      dst[static_cast<std::size_t>(i * kBlockFeatures + j)] = src(i, j);
}

S2P_INTRINSIC void zero(s2p::out<float> statistics) {
  for (std::size_t k = 0; k < statistics.size(); ++k)
    statistics[k] = 0.0f;
}

// Adds column block `block`'s per-feature sums and sums of squares into the statistics.
S2P_INTRINSIC S2P_COST(2 * block.size()) void accumulate(s2p::in<float> block,
                                                          s2p::inout<float> statistics, int column) {
  for (int j = 0; j < kBlockFeatures; ++j) {
    float sum = 0.0f;
    float squares = 0.0f;
    for (int i = 0; i < kRowsPerTile; ++i) {
      const float x = block[static_cast<std::size_t>(i * kBlockFeatures + j)];
      sum += x;
      squares += x * x;
    }
    const auto feature = static_cast<std::size_t>(column * kBlockFeatures + j);
    statistics[feature] += sum;
    statistics[feature + kFeatures] += squares;
  }
}

S2P_INTRINSIC void store_row(s2p::in<float> statistics, s2p::out<s2p::field<2, float>> row) {
  for (int k = 0; k < kStatistics; ++k)
    row(0, k) = statistics[static_cast<std::size_t>(k)];
}

// S: kTiles x kStatistics, row t is tile t's (and after the all_reduce, the batch's) statistics.
S2P_KERNEL S2P_TILES(4) void batch_statistics(s2p::field<2, float>& S, const s2p::field<2, float>& X) {
  auto rows = s2p::resource_map<2>::block_block(X.extent(), {kRowsPerTile, kFeatures}, kTiles)
                  .algorithmic_blocks({kRowsPerTile, kBlockFeatures});
  auto per_tile = s2p::resource_map<2>::block_block(S.extent(), {1, kStatistics}, kTiles);
  auto Sd = s2p::agile(S, per_tile);
  auto Xd = s2p::agile(X, rows);
  auto St = s2p::tiles(Sd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(St.blocks(), [&](s2p::index<2> b) {
    s2p::pool<float, 2 * kBlockElements + kStatistics> smem;
    auto x = smem.tensor<2, kBlockElements>(0);
    auto statistics = smem.tensor<1, kStatistics>(2 * kBlockElements);
    S2P_WARP(1) zero(statistics[0]);
    for (int k = 0; k < kBlocks; ++k) {
      S2P_WARP(0) load_block(Xt({b[0], k}), x[k % 2]);
      S2P_WARP(1) accumulate(x[k % 2], statistics[0], k);
    }
    S2P_WARP(2) store_row(statistics[0], St(b));
  });
  s2p::all_reduce(S, s2p::sum{});
}

int main() {
  constexpr int kRows = kTiles * kRowsPerTile;
  std::vector<float> x(static_cast<std::size_t>(kRows * kFeatures));
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(static_cast<int>((k * 2654435761u) % 1001) - 500) * 1e-3f +
           static_cast<float>(k % kFeatures) * 0.25f;
  std::vector<float> s(static_cast<std::size_t>(kTiles * kStatistics), 0.0f);
  s2p::field<2, float> S(s.data(), {kTiles, kStatistics});
  batch_statistics(S, s2p::field<2, float>(x.data(), {kRows, kFeatures}));
  std::vector<float> mean(kFeatures), variance(kFeatures);
  for (int f = 0; f < kFeatures; ++f) {
    mean[static_cast<std::size_t>(f)] = s[static_cast<std::size_t>(f)] / kRows;
    variance[static_cast<std::size_t>(f)] =
        s[static_cast<std::size_t>(f + kFeatures)] / kRows - mean[static_cast<std::size_t>(f)] * mean[static_cast<std::size_t>(f)];
  }
  sample::print_array("mean", mean.data(), mean.size());
  sample::print_array("variance", variance.data(), variance.size());
  sample::print_array("every tile's statistics", s.data(), s.size());
  return 0;
}
