// A compute-heavy multi-tile kernel for `scripts/bench mpi` (strong scaling of the mpi
// backend against threads): each element of an N x N field iterates a small recurrence on
// its input and the input's next row, so the forall's work dwarfs its owner-copy moves (one
// row per tile boundary) and the result gather (the whole output). Rows are dealt to the
// tiles in blocks. `mpi_scaling [N] [iterations]` prints a checksum, the same on every
// backend and in the sequential build; with S2P_BENCH_TIMING=1 also the kernel's wall time
// on stderr ("kernel_seconds <s>"; under mpi every rank prints its own, which ends with the
// gather of the result, so each rank's time is the job's).
#include <seq2par/seq2par.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

S2P_KERNEL S2P_TILES(4) void relax(s2p::field<2, double>& out, const s2p::field<2, double>& in,
                                   int iterations) {
  auto map = s2p::resource_map<2>::block(out.extent(), 4);
  auto in_map = s2p::resource_map<2>::block(in.extent(), 4);
  auto Od = s2p::agile(out, map);
  auto Id = s2p::agile(in, in_map);
  s2p::forall(Od.extent(), [&](s2p::index<2> i) {
    double x = Id[i];
    const double below = Id[{i[0] + 1, i[1]}];
    for (int k = 0; k < iterations; ++k)
      x = x * 0.5 + below * 0.25 + 0.125 / (1.0 + x * x);
    Od[i] = x;
  });
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 50;
  std::vector<double> in(static_cast<std::size_t>(n + 1) * static_cast<std::size_t>(n));
  std::vector<double> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = static_cast<double>((k * 2654435761u) % 1000) * 1e-3;
  s2p::field<2, double> O(out.data(), {n, n});
  const auto start = std::chrono::steady_clock::now();
  relax(O, s2p::field<2, double>(in.data(), {n + 1, n}), iterations);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  if (const char* timing = std::getenv("S2P_BENCH_TIMING"); timing && *timing == '1')
    std::fprintf(stderr, "kernel_seconds %.6f\n", seconds.count());
  double sum = 0;
  for (const double x : out)
    sum += x;
  std::printf("relax %dx%d, %d iterations: checksum %.12e\n", n, n, iterations, sum);
  return 0;
}
