// A forall in place on the `mpi` backend (<seq2par/forall.h>). Every rank runs the same
// program with the same data (SPMD), so at a kernel's entry every rank already holds every
// field the forall reads: no owner-copy message is needed. Rank r computes its contiguous
// share of the output's rows (or blocks) in place, on its workers. Inside a multi-tile
// kernel a global-view forall's result then stays where it was computed: a later step first
// receives from their owners the kept elements its share reads (kept_results), and the kernel's
// end gives every rank the whole of what the kernel wrote. Otherwise one MPI_Allgatherv gives
// every rank the others' shares of what the forall wrote, so each holds the whole result when
// the forall returns, as with the tile program. Any failure ends the job (a rank that stopped
// would leave the others waiting).
#include "tile/mpi/mpi_backend.h"
#include "tile/mpi/mpi_kept_results.h"
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

using mpi::share_of;

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

void compute_share(std::int64_t count, const rank_parts& parts, const mpi::session& s) {
  const auto [first, last] = share_of(count, s.rank, s.size);
  run_parts_in_place(last - first, [&](std::int64_t a, std::int64_t b) {
    parts.compute(first + a, first + b);
  });
}

// Inside a multi-tile kernel: the kept elements the share reads, the share, and the result kept.
mpi::launch_traffic run_kept(const tile_kernel_info& info, std::int64_t count,
                             const rank_parts& parts, const mpi::session& s) {
  const auto start = std::chrono::steady_clock::now();
  mpi::launch_traffic traffic;
  {
    const mpi::watchdog guard(info.name, "the elements its share reads from other ranks");
    traffic.supersteps.emplace_back("reads from other ranks",
                                    mpi::kept().fetch(*parts.kept, count, s));
  }
  compute_share(count, parts, s);
  mpi::kept().keep(*parts.kept, count, s);
  traffic.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return traffic;
}

mpi::launch_traffic run_on_ranks(const tile_kernel_info& info, std::int64_t count,
                                 const rank_parts& parts, const mpi::session& s) {
  if (parts.kept && s.size > 1 && mpi::kept().inside_kernel())
    return run_kept(info, count, parts, s);
  const auto start = std::chrono::steady_clock::now();
  mpi::launch_traffic traffic;
  if (!mpi::kept().empty()) { // this launch reads its fields whole on every rank
    const mpi::watchdog guard(info.name, "the results kept on other ranks");
    traffic.supersteps.emplace_back("kept results gather", mpi::kept().gather_all(s));
  }
  compute_share(count, parts, s);
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
  const auto [first, last] = share_of(count, s.rank, s.size);
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

void enter_kernel_on_ranks() {
  mpi::kept().enter();
}

void leave_kernel_on_ranks(const tile_kernel_info& info) {
  mpi::kept_results& kept = mpi::kept();
  if (!kept.leave() || kept.empty()) // no MPI call: other backends keep nothing
    return;
  const mpi::session& s = mpi::current();
  mpi::run_or_abort_job(info.name, [&] {
    mpi::launch_traffic traffic;
    const auto start = std::chrono::steady_clock::now();
    {
      const mpi::watchdog guard(info.name, "the results kept on other ranks, at the kernel's end");
      traffic.supersteps.emplace_back("kept results gather", kept.gather_all(s));
    }
    traffic.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    mpi::record_kernel_end(info, s, traffic);
  });
}

void gather_kept_results_on_ranks(const tile_kernel_info& info) {
  if (mpi::kept().empty())
    return;
  const mpi::session& s = mpi::current();
  mpi::run_or_abort_job(info.name, [&] {
    const mpi::watchdog guard(info.name, "the results kept on other ranks");
    (void)mpi::kept().gather_all(s);
  });
}

void run_parts_on_ranks(const tile_kernel_info& info, std::int64_t count, const rank_parts& parts) {
  const mpi::session& s = mpi::current();
  mpi::run_or_abort_job(info.name, [&] {
    const mpi::launch_traffic traffic = run_on_ranks(info, count, parts, s);
    mpi::record_launch(info, {"parts", [&](int rank) { return share_of(count, rank, s.size); }},
                       s, traffic, {{"in_place", {{"parts", count}}}});
  });
}

} // namespace s2p::rt
