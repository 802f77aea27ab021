// Warp pipelines whose loops have long constant trip counts: expanded, their warps' code would
// not fit a tile (4000 iterations of a load / transform / store ring need about 1.4 MB of code
// against a tile's 624 KiB), so seq2par keeps them as loops, as it keeps a loop whose trip count
// is a kernel parameter. Written the ways a user would: a ring after a short (expanded) start
// and before an expanded stage; a long loop with a nonzero start and step 2 inside a short
// outer loop, its indices and bounds moving with the outer variable, a call on its last
// iteration only and a branch on the outer variable; a long constant loop beside one whose
// trip count is a kernel parameter; and a task split into warps in a multi-tile kernel. Results
// must equal the sequential build on every backend.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <cstdint>
#include <vector>

namespace {
constexpr int kSlot = 4;     // elements per ring slot
constexpr int kRing = 4000;  // iterations of the ring kernel's long loop
constexpr int kSweep = 1500; // iterations of each sweep
constexpr int kRows = 8;     // multi-tile fields are kRows x kCols: 8 blocks, 2 per tile
constexpr int kCols = 16;
constexpr int kBlock = 4;    // in blocks of kBlock x kBlock
constexpr int kRounds = 8000; // iterations of each task's loop
} // namespace

S2P_INTRINSIC void load(s2p::in<std::int64_t> src, s2p::out<std::int64_t> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void transform(s2p::in<std::int64_t> src, s2p::out<std::int64_t> dst,
                             std::int64_t round) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = (src[k] * 3 + round) % 1000003;
}

S2P_INTRINSIC void store(s2p::in<std::int64_t> src, s2p::out<std::int64_t> dst) {
  sample::jitter();
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = src[k];
}

S2P_INTRINSIC void fold(s2p::in<std::int64_t> slots, s2p::out<std::int64_t> total) {
  std::int64_t s = 0;
  for (const std::int64_t v : slots)
    s = (s * 31 + v) % 1000003;
  total[0] = s;
}

// A short start (expanded), the long ring (kept as a loop), then a fold of the ring (expanded).
S2P_KERNEL void ring(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out,
                     s2p::tensor_ref<std::int64_t> total) {
  s2p::pool<std::int64_t, 6 * kSlot> smem;
  auto staged = smem.tensor<3, kSlot>(0);
  auto results = smem.tensor<3, kSlot>(3 * kSlot);
  for (int i = 0; i < 5; ++i) {
    S2P_WARP(0) load(in[i], staged[i % 3]);
    S2P_WARP(1) transform(staged[i % 3], results[i % 3], -i);
    S2P_WARP(2) store(results[i % 3], out[i]);
  }
  for (int i = 0; i < kRing; ++i) {
    S2P_WARP(0) load(in[i + 5], staged[i % 3]);
    S2P_WARP(1) transform(staged[i % 3], results[i % 3], i);
    S2P_WARP(2) store(results[i % 3], out[i + 5]);
  }
  S2P_WARP(1) fold(results.all(), total[0]);
}

// Three sweeps, each a long loop over every other row from row 10 + t: the kept loop's start
// moves with t, its last iteration also marks the row it stored, and its transform's round
// depends on a branch on t (resolved per sweep).
S2P_KERNEL void sweeps(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out,
                       s2p::tensor_ref<std::int64_t> last) {
  s2p::pool<std::int64_t, 6 * kSlot> smem;
  auto staged = smem.tensor<3, kSlot>(0);
  auto results = smem.tensor<3, kSlot>(3 * kSlot);
  for (int t = 0; t < 3; ++t) {
    for (int i = 10 + t; i < 10 + t + 2 * kSweep; i += 2) {
      S2P_WARP(0) load(in[i], staged[i % 3]);
      if (t == 1) {
        S2P_WARP(1) transform(staged[i % 3], results[i % 3], 7);
      } else {
        S2P_WARP(1) transform(staged[i % 3], results[i % 3], i + t);
      }
      S2P_WARP(2) store(results[i % 3], out[t * 2 * kSweep + i]);
      if (i == 10 + t + 2 * (kSweep - 1))
        S2P_WARP(2) store(results[i % 3], last[t]);
    }
  }
}

// A long constant loop, then a loop whose trip count is the kernel parameter n.
S2P_KERNEL void both(s2p::tensor_ref<std::int64_t> in, s2p::tensor_ref<std::int64_t> out,
                     int n) {
  s2p::pool<std::int64_t, 4 * kSlot> smem;
  auto staged = smem.tensor<2, kSlot>(0);
  auto results = smem.tensor<2, kSlot>(2 * kSlot);
  for (int i = 0; i < kRing; ++i) {
    S2P_WARP(0) load(in[i], staged[i % 2]);
    S2P_WARP(1) transform(staged[i % 2], results[i % 2], 5);
    S2P_WARP(2) store(results[i % 2], out[i]);
  }
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) load(out[i], staged[i % 2]);
    S2P_WARP(1) transform(staged[i % 2], results[i % 2], i);
    S2P_WARP(2) store(results[i % 2], out[kRing + i]);
  }
}

S2P_INTRINSIC void load_block(s2p::in<s2p::field<2, double>> src, s2p::out<double> dst) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      dst[static_cast<std::size_t>(i * kBlock + j)] = src(i, j);
}
S2P_INTRINSIC void relax(s2p::in<double> x, s2p::inout<s2p::field<2, double>> y, int round) {
  for (int i = 0; i < kBlock; ++i)
    for (int j = 0; j < kBlock; ++j)
      y(i, j) = y(i, j) * 0.5 + x[static_cast<std::size_t>(i * kBlock + j)] * (round % 7);
}

// Each task relaxes its block of Y towards its block of X over a long loop, through a ring of
// three slots: the task kernel's loop is kept as a loop on every tile.
S2P_KERNEL S2P_TILES(4) void relax_blocks(s2p::field<2, double>& Y,
                                          const s2p::field<2, double>& X) {
  auto map = s2p::resource_map<2>::block_cyclic(Y.extent(), {kBlock, kBlock}, 4)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  auto Yt = s2p::tiles(Yd);
  auto Xt = s2p::tiles(Xd);
  s2p::forall(Yt.blocks(), [&](s2p::index<2> b) {
    s2p::pool<double, 3 * kBlock * kBlock> smem;
    auto slots = smem.tensor<3, kBlock * kBlock>(0);
    auto y = Yt(b);
    for (int k = 0; k < kRounds; ++k) {
      S2P_WARP(0) load_block(Xt(b), slots[k % 3]);
      S2P_WARP(1) relax(slots[k % 3], y, k);
    }
  });
}

int main() {
  const auto rows = [](int n) { return std::vector<std::int64_t>(static_cast<std::size_t>(n) * kSlot); };
  std::vector<std::int64_t> in = rows(kRing + 2 * 3 * kSweep + 20);
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = static_cast<std::int64_t>(k * 7 % 101);
  const auto ref = [](std::vector<std::int64_t>& v) {
    return s2p::tensor_ref<std::int64_t>{v.data(), v.size() / kSlot, kSlot};
  };

  std::vector<std::int64_t> out = rows(kRing + 5), total(1, -1);
  ring(ref(in), ref(out), {total.data(), 1, 1});
  std::printf("ring total=%lld\n", static_cast<long long>(total[0]));
  sample::print_array("ring out", out.data(), out.size());

  std::vector<std::int64_t> swept = rows(3 * 2 * kSweep + 20), last = rows(3);
  sweeps(ref(in), ref(swept), ref(last));
  sample::print_array("sweeps out", swept.data(), swept.size());
  sample::print_array("sweeps last", last.data(), last.size());

  for (int n : {0, 1, 2, 7, 100}) {
    std::vector<std::int64_t> both_out = rows(kRing + n);
    both(ref(in), ref(both_out), n);
    std::printf("both n=%d\n", n);
    sample::print_array("both out", both_out.data(), both_out.size());
  }

  std::vector<double> x(kRows * kCols), y(kRows * kCols);
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = static_cast<double>(static_cast<int>((k * 5) % 17) - 8) * 0.125;
    y[k] = static_cast<double>(k % 7);
  }
  s2p::field<2, double> Y(y.data(), {kRows, kCols});
  relax_blocks(Y, s2p::field<2, double>(x.data(), {kRows, kCols}));
  sample::print_array("relaxed", y.data(), y.size());
  return 0;
}
