// gemm (C = C + A * B) for `scripts/bench host`, in the multi-tile form seq2par accepts
// today: block by block (the local-global view), one task per 64 x 64 block of C, looping
// over the blocks of A's row band and B's column band. 16 tiles, C's blocks dealt in a 4 x 4
// grid. `gemm` (768 x 768) prints a checksum, the same on every backend, in the
// sequential build and in the plain loop of host_baselines.cpp; with S2P_BENCH_TIMING=1 also
// the kernel's wall time on stderr ("kernel_seconds <s>").
#include <seq2par/seq2par.h>

#include "bench_support.h"

#include <cstdio>
#include <vector>

namespace {
constexpr int kBlock = 64;
constexpr int kBlocks = 12; // along each dimension: n = 768
constexpr int kSize = kBlock * kBlocks;
} // namespace

S2P_KERNEL S2P_TILES(16) void gemm(s2p::field<2, double>& C, const s2p::field<2, double>& A,
                                   const s2p::field<2, double>& B) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {C.extent()[0] / 4, C.extent()[1] / 4}, 16)
                 .algorithmic_blocks({kBlock, kBlock});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  auto Bt = s2p::tiles(Bd);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto c = Ct(b);
    for (int k = 0; k < kBlocks; ++k) {
      const auto a = At({b[0], k});
      const auto w = Bt({k, b[1]});
      for (int i = 0; i < kBlock; ++i)
        for (int kk = 0; kk < kBlock; ++kk) {
          const double aik = a(i, kk);
          for (int j = 0; j < kBlock; ++j)
            c(i, j) += aik * w(kk, j);
        }
    }
  });
}

int main() {
  const int n = kSize;
  std::vector<double> a, b, c;
  bench::gemm_inputs(n, a, b, c);
  s2p::field<2, double> Cf(c.data(), {n, n});
  const bench::clock clock;
  gemm(Cf, s2p::field<2, double>(a.data(), {n, n}), s2p::field<2, double>(b.data(), {n, n}));
  clock.report();
  std::printf("gemm %d x %d: checksum %.12e\n", n, n, bench::checksum(c));
  return 0;
}
