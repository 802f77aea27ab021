// Launch overhead for `scripts/bench host`: a 16-tile forall over 16 elements (one per tile),
// launched `launches` times (default 100), alternating two fields, so nearly all of each
// launch's time is the launch itself. `launch_overhead [launches]` prints a checksum; with
// S2P_BENCH_TIMING=1 also the launches' wall time on stderr ("kernel_seconds <s>").
#include <seq2par/seq2par.h>

#include "bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

S2P_KERNEL S2P_TILES(16) void bump(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 16);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] * 0.5 + 1.0; });
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 100;
  std::vector<double> x(16), y(16);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k);
  s2p::field<1, double> X(x.data(), {16}), Y(y.data(), {16});
  const bench::clock clock;
  for (int l = 0; l < launches; l += 2) {
    bump(Y, X);
    bump(X, Y);
  }
  clock.report();
  std::printf("launch_overhead %d launches: checksum %.12e\n", launches, bench::checksum(x));
  return 0;
}
