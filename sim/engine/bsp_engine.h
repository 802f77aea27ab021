// The BSP engine: runs the expanded program superstep by superstep.
//
// Time is kept per tile, not per cycle: each tile has the cycle at which it is ready for its next
// superstep. A superstep over a sync group computes (ready + cost), meets at a barrier when the
// variant asks for one (max over the group + barrier cost), exchanges (on-chip transfers timed
// analytically, external ones by a packet-level event simulation), and meets again for variants
// (b)/(c). Groups touch only their own tiles' clocks, so independent groups run their BSP cycles
// independently; the cost of a superstep is proportional to its group and its transfers, never
// to the cycles simulated.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/distributed.h"
#include "engine/tile_memory.h"
#include "exchange/on_chip.h"
#include "exchange/transfers.h"
#include "external/external_exchange.h"
#include "report/trace.h"
#include "seq2par/sim/report.h"
#include "seq2par/sim/resolve.h"
#include "support/worker_pool.h"

namespace s2p::sim::detail {

struct EngineOptions {
  std::uint64_t seed = 1;
  bool move_data = true;
  std::uint64_t max_host_bytes = 16ULL << 30;
  bool stop_on_deadlock = true;
  /// Host threads sharing each superstep's per-tile work (0: the machine's cores). Results do
  /// not depend on it.
  unsigned threads = 1;
  /// A distributed run's ranks (null or one rank: a single process). See engine/distributed.h.
  Ranks* ranks = nullptr;
  /// In a distributed run, supersteps whose sync group lies on one chip of one rank run on that
  /// rank alone, the others going on to their own; the ranks catch up with each other before a
  /// superstep they all run, and at the end. Needs no trace (its events would have to be
  /// interleaved) and stop_on_deadlock.
  bool alone_supersteps = true;
};

/// Thrown on every rank at a catching-up point when a superstep that one rank ran alone ended
/// the run (a deadlock) or failed there: the other ranks have run ahead of it, so the run starts
/// again with every superstep on every rank (Simulation does it), where the same happens in
/// program order.
class RestartEverySuperstepOnEveryRank : public std::exception {
public:
  [[nodiscard]] const char* what() const noexcept override {
    return "a superstep one rank ran alone ended the run: running again on every rank";
  }
};

/// Called for each compute entry on each tile (in tile order) when data is moved; returns the
/// cycles it took, or nullopt to use the schedule's `cycles`.
using ComputeHook =
    std::function<std::optional<Cycles>(const ResolvedCompute&, std::size_t superstep)>;

/// a + b simulated cycles; an overflow is an error of the input (compute costs too large). Used
/// by both halves of the engine (bsp_engine.cpp, bsp_exchange_phase.cpp).
inline Cycles add_cycles(Cycles a, Cycles b) {
  Cycles sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw InputError("simulated time overflows 2^64 cycles (compute costs too large)");
  }
  return sum;
}

class BspEngine {
public:
  BspEngine(const Schedule& schedule, const Fabric& fabric, const EngineOptions& options,
            Diagnostics& diagnostics, RunReport& report, TraceRecorder* trace);

  /// Runs the next superstep; false when the program is over (or stopped by a deadlock).
  bool step(const ComputeHook& hook);
  [[nodiscard]] bool done() const { return done_; }
  [[nodiscard]] std::size_t next_superstep() const { return next_; }
  /// Completes the report (total cycles, per-tile totals, XB acknowledgements in flight).
  void finish();

  [[nodiscard]] const Resolver& resolver() const { return resolver_; }
  [[nodiscard]] TileMemory& memory() { return memory_; }
  [[nodiscard]] const TileMemory& memory() const { return memory_; }
  /// The host threads of the run, for work outside supersteps (filling initial data).
  [[nodiscard]] WorkerPool& pool() { return pool_; }
  /// Parts to split work over `tiles` tiles into: one per thread, but never so small that
  /// handing them out costs more than the work.
  [[nodiscard]] unsigned parts_for(std::size_t tiles) const { return parts_for(tiles, pool_.size()); }
  /// The tiles each rank owns (empty: a single process).
  [[nodiscard]] std::span<const TileRange> rank_shares() const { return shares_; }

private:
  /// Runs two independent jobs on two threads when `work` items make it worth it, else one
  /// after the other (`first` then `second`). The calling thread takes `first` (it claims parts
  /// from the front) unless a worker has finished `second` before it starts.
  template <class First, class Second>
  void side_by_side(std::size_t work, const First& first, const Second& second) {
    if (parts_for(work) < 2) {
      first();
      second();
      return;
    }
    pool_.run(2, [&](unsigned part) { part == 0 ? first() : second(); });
  }
  [[nodiscard]] static unsigned parts_for(std::size_t tiles, unsigned threads);
  /// For each sync group (all first): the rank that runs its supersteps alone, or -1.
  void find_alone_groups();
  /// Superstep k on this rank alone: its diagnostics and statistics are kept for the others.
  void run_alone(std::size_t k, const ComputeHook& hook);
  /// Superstep k that another rank runs alone: a place for its statistics.
  void skip(std::size_t k);
  /// Every rank tells the others its own tiles' clocks and produced bytes and the supersteps it
  /// ran alone; all replay those supersteps' diagnostics and statistics in program order. With
  /// `final`, also the per-tile statistics.
  void catch_up(bool final);
  [[nodiscard]] bool distributed() const { return !shares_.empty(); }
  /// Resolves superstep k into step_, in parts over the group's tiles when there are threads.
  void resolve(std::size_t k);
  /// Each rank resolves its share of the group's tiles (in parts over its threads); the parts
  /// are gathered and merged in part order on every rank.
  void resolve_across_ranks(std::size_t k, std::size_t tiles);
  /// Costs of the compute entries (callbacks run here) and bytes they produce.
  void compute_phase(std::size_t k, const ComputeHook& hook);
  /// Times superstep k: compute, barriers, exchange; records its statistics.
  void exchange_phase(std::size_t k);
  /// Compute end of each tile of the group; returns the last one.
  Cycles settle_compute(const std::vector<TileId>& group, SuperstepStats& stats);
  /// Matches, checks, times and moves the phase's transfers; false after an internal error.
  bool run_transfers(std::size_t k);
  /// Exchange end of each tile of the group and the phase's statistics; returns the last end.
  Cycles settle_transfers(const std::vector<TileId>& group, SuperstepStats& stats);
  /// Moves the on-chip transfers' data, each destination tile's in arrival order;
  /// `sources_written` (a read-write hazard) keeps it on one thread, in one global order.
  void move_on_chip_data(bool sources_written);
  void apply(const Transfer& transfer, std::uint64_t offset, std::uint64_t bytes);
  /// Asks the CPU for the memory a transfer will read and write (a hint only).
  void prefetch(const Transfer& transfer) const;
  /// Asks for the first line of each side only: enough to start the address translation.
  void prefetch_pages(const Transfer& transfer) const;
  void report_deadlock(std::size_t k);
  [[nodiscard]] Cycles barrier_cost(int group) const;

  const Schedule& schedule_;
  const Fabric& fabric_;
  EngineOptions options_;
  Diagnostics* diagnostics_; ///< the run's, or the one of a superstep run alone
  RunReport& report_;
  TraceRecorder* trace_;
  std::vector<TileRange> shares_; ///< every rank's tiles; empty in a single process
  RankOwners owners_;
  unsigned rank_threads_ = 1; ///< the fewest threads any rank has: every rank parts alike
  std::vector<int> alone_rank_; ///< per sync group (all first); empty: every rank runs all
  bool alone_ = false;          ///< running a superstep this rank runs alone
  bool restart_ = false;        ///< a superstep run alone ended the run or failed
  bool ran_alone_ = false;      ///< some rank ran a superstep alone since the last catching-up
  struct AloneStep {
    SuperstepStats stats;
    Diagnostics diagnostics;
  };
  std::vector<AloneStep> alone_steps_; ///< since the last catching-up
  Resolver resolver_;
  TilePlaces places_;
  TileMemory memory_;
  std::unique_ptr<ExternalExchange> external_;
  WorkerPool pool_;

  std::size_t next_ = 0;
  bool done_ = false;
  std::vector<Cycles> ready_;
  std::vector<Cycles> compute_end_;
  std::vector<Cycles> exchange_start_;
  std::vector<Cycles> exchange_end_;
  std::vector<Cycles> cost_;
  std::vector<Cycles> send_end_; ///< last word out of each tile, while settling an exchange
  std::vector<std::uint64_t> sent_bytes_;  ///< bytes out of each tile, while settling one
  std::vector<Cycles> send_port_cycles_;   ///< on-chip send port busy, while settling one
  std::vector<Cycles> barrier_; ///< per sync group (all first), from Fabric::barrier_cycles
  std::vector<std::vector<std::int64_t>> xreq_tile_; ///< per group + 1, per chip: lowest tile

  // Reused every superstep.
  ResolvedSuperstep step_;
  std::vector<ResolvedPart> parts_;
  std::vector<Transfer> transfers_;
  ExchangeScratch scratch_;
  ExchangeScratch timing_scratch_; ///< time_on_chip's, as it may run beside check_hazards
  Diagnostics timing_diagnostics_;
  std::vector<std::uint32_t> unmatched_;
  std::vector<Cycles> port_free_;
  std::vector<Cycles> xreq_time_;
  std::vector<DataMove> moves_; ///< a distributed phase's data moves, in single-process order
};

} // namespace s2p::sim::detail
