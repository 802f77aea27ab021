// A forall in place on the `mpi` backend (<seq2par/forall.h>). Every rank runs the same
// program with the same data (SPMD), so at a kernel's entry every rank already holds every
// field the forall reads: no owner-copy message is needed. Rank r computes its contiguous
// share of the output's rows (or blocks) in place, on its workers; then one MPI_Allgatherv
// gives every rank the others' shares of what the forall wrote, so each holds the whole
// result when the kernel returns, as with the tile program. Any failure ends the job (a rank
// that stopped would leave the others waiting in the gather).
#include "tile/mpi/mpi_backend.h"
#include "tile/mpi/mpi_report.h"
#include "tile/mpi/mpi_session.h"
#include "tile/mpi/mpi_watchdog.h"
#include "tile/runners.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace s2p::rt {

namespace {

// Rank r's contiguous share of [0, count): [count * r / R, count * (r + 1) / R).
std::pair<std::int64_t, std::int64_t> share_of(std::int64_t count, int rank, int ranks) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

// Every rank's packed share, on every rank, into `all`.
void gather_shares(const mpi::session& s, const std::vector<std::byte>& mine,
                   std::vector<int>& counts, std::vector<int>& displacements,
                   std::vector<std::byte>& all) {
  long long size = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<std::size_t>(s.size));
  mpi::check(MPI_Allgather(&size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, s.comm),
             "MPI_Allgather");
  long long total = 0;
  for (const long long n : sizes) {
    if (total + n > INT_MAX)
      throw std::runtime_error("a forall's result is over 2 GiB: more than one MPI_Allgatherv");
    displacements.push_back(static_cast<int>(total));
    counts.push_back(static_cast<int>(n));
    total += n;
  }
  all.resize(static_cast<std::size_t>(total));
  mpi::check(MPI_Allgatherv(mine.data(), static_cast<int>(size), MPI_BYTE, all.data(),
                            counts.data(), displacements.data(), MPI_BYTE, s.comm),
             "MPI_Allgatherv");
}

mpi::launch_traffic run_on_ranks(const tile_kernel_info& info, std::int64_t count,
                                 const rank_parts& parts, const mpi::session& s) {
  const auto start = std::chrono::steady_clock::now();
  const auto [first, last] = share_of(count, s.rank, s.size);
  run_parts_in_place(last - first, [&](std::int64_t a, std::int64_t b) {
    parts.compute(first + a, first + b);
  });
  mpi::launch_traffic traffic;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (s.size == 1) { // the rank holds the whole result already
    traffic.supersteps.emplace_back("result gather", mpi::superstep_traffic{});
    traffic.wall_seconds = elapsed();
    return traffic;
  }
  // Kept between launches: a time loop's launches gather the same sizes again and again.
  static std::vector<std::byte> mine, all;
  mine.clear();
  parts.pack(first, last, mine);
  std::vector<int> counts, displacements;
  {
    const mpi::watchdog guard(info.name, "the other ranks' shares of the result");
    gather_shares(s, mine, counts, displacements, all);
  }
  for (int r = 0; r < s.size; ++r)
    if (r != s.rank)
      parts.unpack(share_of(count, r, s.size).first, share_of(count, r, s.size).second,
                   all.data() + displacements[static_cast<std::size_t>(r)]);
  const auto sent = static_cast<std::int64_t>(mine.size());
  traffic.supersteps.emplace_back(
      "result gather", mpi::superstep_traffic{sent * (s.size - 1), sent > 0 ? s.size - 1 : 0});
  traffic.wall_seconds = elapsed();
  return traffic;
}

} // namespace

void run_parts_on_ranks(const tile_kernel_info& info, std::int64_t count, const rank_parts& parts) {
  const mpi::session& s = mpi::current();
  mpi::run_or_abort_job(info.name, [&] {
    const mpi::launch_traffic traffic = run_on_ranks(info, count, parts, s);
    mpi::record_launch(info, {"parts", [&](int rank) { return share_of(count, rank, s.size); }},
                       s, traffic, {{"in_place", {{"parts", count}}}});
  });
}

} // namespace s2p::rt
