// A forall on the `mpi` backend. Every rank runs the same program with the same data
// (SPMD), so each can load its own tiles' owned blocks from its copy of the fields. Then,
// like the threads backend but across processes:
//   load (the rank's tiles, one thread each) -> owner-copy moves (copies within the rank,
//   messages between ranks) -> compute (one thread per tile) -> work-stealing returns ->
//   gather every tile's output buffers (the output's, and a fused forall's further outputs')
//   to every rank -> store every tile's owned blocks of them
// so that when the kernel returns each rank's output field holds the whole result and the
// program goes on as the sequential one would. Any failure aborts the job: the other ranks
// would otherwise wait forever for this rank's messages.
#include "tile/mpi/mpi_backend.h"
#include "tile/mpi/mpi_exchange.h"
#include "tile/mpi/mpi_report.h"
#include "tile/mpi/mpi_session.h"
#include "tile/mpi/mpi_watchdog.h"
#include "tile/mpi/tile_dealing.h"
#include "tile/runners.h"
#include "tile/owner_copy_summary.h"

#include <chrono>
#include <exception>
#include <functional>
#include <thread>

namespace s2p::rt {

namespace mpi {

namespace {

// Runs `work(tile)` for each of this rank's tiles on its own thread, with the tile and chip
// indices set as on the other backends; rethrows the first failure once all have ended.
void on_local_tiles(const tile_dealing& deal, int rank, const std::vector<int>& chips,
                    const std::function<void(int)>& work) {
  const int first = deal.first(rank), end = deal.end(rank);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(end - first));
  {
    std::vector<std::jthread> threads;
    for (int t = first; t < end; ++t)
      threads.emplace_back([&, t] {
        s2p::detail::current_tile = t;
        s2p::detail::current_chip = chips[static_cast<std::size_t>(t)];
        try {
          work(t);
        } catch (...) {
          errors[static_cast<std::size_t>(t - first)] = std::current_exception();
        }
      });
  }
  for (const auto& error : errors)
    if (error)
      std::rethrow_exception(error);
}

// Tags keep a launch's supersteps apart (messages between two ranks with one tag arrive in
// the order sent, and every rank runs the same launches in the same order).
constexpr int kMovesTag = 1;
constexpr int kReturnsTag = 2;

std::int64_t bytes_between_ranks(const std::vector<tile_move>& moves, const tile_dealing& deal) {
  std::int64_t bytes = 0;
  for (const auto& m : moves)
    if (deal.owner(m.from_tile) != deal.owner(m.to_tile))
      bytes += m.bytes;
  return bytes;
}

nlohmann::ordered_json owner_copy_details(const tile_kernel_info& info,
                                          const tile_program& program, const tile_dealing& deal) {
  nlohmann::ordered_json summary = owner_copy_summary(info, program);
  const std::int64_t between = bytes_between_ranks(program.moves, deal);
  summary["bytes_between_ranks"] = between;
  if (program.minimum_bytes > 0)
    summary["between_ranks_ratio"] =
        static_cast<double>(between) / static_cast<double>(program.minimum_bytes);
  return {{"owner_copy", summary}};
}

launch_traffic run(const tile_kernel_info& info, const tile_program& program,
                   const tile_dealing& deal, const std::vector<int>& chips, const session& s) {
  const auto start = std::chrono::steady_clock::now();
  launch_traffic traffic;
  rank_buffers buffers(program, deal, s.rank);
  on_local_tiles(deal, s.rank, chips, [&](int t) { program.load(t, buffers.memory(t)); });
  {
    const watchdog guard(info.name, "the owner-copy moves from other ranks");
    traffic.supersteps.emplace_back("owner-copy moves",
                                    exchange(program.moves, deal, buffers, s, kMovesTag));
  }
  on_local_tiles(deal, s.rank, chips, [&](int t) { program.compute(t, buffers.memory(t)); });
  {
    const watchdog guard(info.name, "the other ranks' work-stealing returns and results");
    traffic.supersteps.emplace_back("work-stealing returns",
                                    exchange(program.returns, deal, buffers, s, kReturnsTag));
    traffic.supersteps.emplace_back("result gather", gather_output(deal, buffers, s));
  }
  // Every tile's owned blocks of the output (and of a fused forall's further outputs), on
  // every rank: only the fields the forall writes are stored.
  for (int t = 0; t < info.tiles; ++t)
    program.store(t, buffers.memory(t));
  traffic.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return traffic;
}

} // namespace

} // namespace mpi

void run_tile_program_on_mpi(const tile_kernel_info& info, const tile_program& program) {
  gather_kept_results_on_ranks(info); // the tiles load their blocks from every field, whole
  const mpi::session& s = mpi::current();
  const std::vector<int> chips = forall_chips(info);
  const mpi::tile_dealing deal(chips, s.size);
  mpi::run_or_abort_job(info.name, [&] {
    const mpi::launch_traffic traffic = mpi::run(info, program, deal, chips, s);
    mpi::record_launch(info, mpi::tiles_of(deal), s, traffic,
                       mpi::owner_copy_details(info, program, deal));
  });
}

} // namespace s2p::rt
