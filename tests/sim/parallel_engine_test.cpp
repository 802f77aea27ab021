// The parallel engine: the same schedule gives byte-identical reports, traces, diagnostics and
// memory whatever the number of host threads. The schedules have enough tiles (256) that every
// thread count here really splits each superstep into parts.
//
// The distributed engine (DistributedEngine.*): the same schedules as 2 and 3 ranks (threads
// standing in for MPI processes, thread_ranks.h) give every rank the single process's report,
// trace and diagnostics; `mpirun` itself is tested by tests/sim/mpi_run_test.cmake.
#include <gtest/gtest.h>

#include <exception>
#include <sstream>
#include <thread>

#include "seq2par/sim/collectives.h"
#include "sim_test_util.h"
#include "thread_ranks.h"

namespace {

using namespace s2p_test;

constexpr std::uint32_t kTiles = 256;
const unsigned kThreadCounts[] = {2, 3, 8};

struct Outputs {
  std::string report;
  std::string trace;
  std::string diagnostics;
};

std::vector<sim::TileId> traced_tiles() {
  std::vector<sim::TileId> tiles;
  for (sim::TileId t = 0; t < kTiles; t += 3) {
    tiles.push_back(t);
  }
  return tiles;
}

/// `traced`: with a trace (a distributed run then runs every superstep on every rank).
Outputs run(const Json& schedule, const sim::Fabric& fabric, unsigned threads, bool verify,
            bool stop_on_deadlock = true, sim::Ranks* ranks = nullptr, bool move_data = true,
            bool traced = true) {
  sim::SimulationOptions options;
  options.threads = threads;
  options.ranks = ranks;
  options.move_data = move_data;
  options.seed = 7;
  if (traced) {
    options.trace_tiles = traced_tiles();
  }
  options.stop_on_deadlock = stop_on_deadlock;
  sim::Simulation s(sim::parse_schedule(schedule, "parallel.json"), fabric, options);
  s.run();
  if (verify) {
    EXPECT_TRUE(s.verify().ok);
  }
  std::ostringstream trace;
  s.write_trace(trace);
  std::string diagnostics;
  for (const sim::Diagnostic& d : s.diagnostics().items()) {
    diagnostics += d.kind + " " + d.to_string() + "\n";
  }
  diagnostics += "errors " + std::to_string(s.diagnostics().error_count()) + ", dropped " +
                 std::to_string(s.diagnostics().dropped()) + "\n";
  return {s.report_json().dump(1), trace.str(), diagnostics};
}

/// The schedule as 2 and 3 ranks (with `threads` host threads each) against one process, with
/// and without a trace (without one, supersteps of a chip's sync group run on its rank alone).
void expect_same_for_every_rank_count(const Json& schedule, const sim::Fabric& fabric, bool verify,
                                      bool stop_on_deadlock = true, bool move_data = true,
                                      std::initializer_list<unsigned> thread_counts = {1}) {
  for (const bool traced : {true, false}) {
  const Outputs one = run(schedule, fabric, 1, verify, stop_on_deadlock, nullptr, move_data, traced);
  for (const unsigned ranks : {2U, 3U}) {
    for (const unsigned threads : thread_counts) {
      ThreadHub hub(ranks);
      std::vector<Outputs> outputs(ranks);
      std::vector<std::exception_ptr> errors(ranks);
      std::vector<std::thread> rank_threads;
      for (unsigned r = 0; r < ranks; ++r) {
        rank_threads.emplace_back([&, r] {
          try {
            ThreadRanks mine(hub, r);
            outputs[r] =
                run(schedule, fabric, threads, verify, stop_on_deadlock, &mine, move_data, traced);
          } catch (...) {
            errors[r] = std::current_exception();
          }
        });
      }
      for (std::thread& t : rank_threads) {
        t.join();
      }
      for (unsigned r = 0; r < ranks; ++r) {
        if (errors[r]) {
          std::rethrow_exception(errors[r]);
        }
        const std::string where = "rank " + std::to_string(r) + " of " + std::to_string(ranks) +
                                  ", " + std::to_string(threads) + " thread(s)" +
                                  (traced ? ", traced" : "");
        EXPECT_TRUE(outputs[r].report == one.report) << where << ": the report differs";
        EXPECT_TRUE(outputs[r].trace == one.trace) << where << ": the trace differs";
        EXPECT_EQ(outputs[r].diagnostics, one.diagnostics) << where;
      }
    }
  }
  }
}

void expect_same_for_every_thread_count(const Json& schedule, const sim::Fabric& fabric,
                                        bool verify, bool stop_on_deadlock = true) {
  const Outputs one = run(schedule, fabric, 1, verify, stop_on_deadlock);
  for (const unsigned threads : kThreadCounts) {
    const Outputs many = run(schedule, fabric, threads, verify, stop_on_deadlock);
    // Compared as booleans first: a failure should not print megabytes.
    EXPECT_TRUE(many.report == one.report) << threads << " threads: the report differs";
    EXPECT_TRUE(many.trace == one.trace) << threads << " threads: the trace differs";
    EXPECT_EQ(many.diagnostics, one.diagnostics) << threads << " threads";
  }
}

Json ring(const sim::Fabric& fabric, std::uint32_t chips, std::uint64_t bytes, bool bidirectional) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = kTiles;
  options.chips = chips;
  options.bytes = bytes;
  options.bidirectional = bidirectional;
  return sim::make_ring_schedule(options, fabric);
}

TEST(ParallelEngine, AllReduceReportAndTraceIdenticalForEveryThreadCount) {
  const sim::Fabric fabric = small_fabric(kTiles);
  expect_same_for_every_thread_count(ring(fabric, 1, 16384, false), fabric, /*verify=*/true);
}

TEST(ParallelEngine, MultiChipLossyLinksIdenticalForEveryThreadCount) {
  sim::Fabric fabric = small_fabric(kTiles / 4, 4);
  fabric.external.loss_probability = 0.05;
  fabric.external.reorder_window_cycles = 500;
  expect_same_for_every_thread_count(ring(fabric, 4, 4096, true), fabric, /*verify=*/true);
}

/// The calibrated model's run-time choices: loss-free links released on transmit, 64 tiles
/// granted at once over parallel links (a bidirectional ring across two chips), and on-chip sends with
/// dynamic timing contending for ports (each tile sends to four others, all asking for cycle 0).
TEST(ParallelEngine, ConcurrentGrantsAndDynamicTimingIdenticalForEveryThreadCount) {
  const sim::Fabric chips = small_fabric(kTiles / 2, 2);
  expect_same_for_every_thread_count(ring(chips, 2, 16384, true), chips, /*verify=*/true);
  Json exchange = Json::array();
  for (int j = 1; j <= 4; ++j) {
    const std::string k = std::to_string(j * 37);
    exchange.push_back({{"kind", "send"}, {"name", "s" + k}, {"buffer", "x"}, {"offset", 0},
                        {"bytes", 256}, {"to", "(tile + " + k + ") % tiles"},
                        {"timing", "dynamic"}});
    exchange.push_back({{"kind", "recv"}, {"name", "r" + k}, {"buffer", "x"},
                        {"offset", 256 * j}, {"bytes", 256}, {"from", "(tile - " + k + ") % tiles"}});
  }
  const Json dynamic = schedule_json(
      kTiles, Json::array({{{"name", "x"}, {"type", "u8"}, {"bytes", 1280}, {"init", "input"}}}),
      Json::array({{{"name", "spread"}, {"exchange", exchange}}}));
  expect_same_for_every_thread_count(dynamic, small_fabric(kTiles), /*verify=*/false);
}

/// Every tile sends to its neighbour; some tiles break a rule each: port conflicts, a read-write
/// hazard, out-of-bounds writes, expression errors, sends nobody receives, listed tile sets, and
/// finally a deadlock.
Json broken_schedule() {
  const Json buffers =
      Json::array({{{"name", "x"}, {"type", "i32"}, {"bytes", 1024}, {"init", "input"}},
                   {{"name", "y"}, {"type", "i32"}, {"bytes", 1024}, {"init", "none"}}});
  const Json send_next = {{"kind", "send"},     {"name", "next"}, {"buffer", "x"},
                          {"offset", 0},        {"bytes", 64},    {"to", "(tile + 1) % tiles"},
                          {"cycle", "tile % 7"}};
  const Json recv_prev = {{"kind", "recv"}, {"name", "prev"}, {"buffer", "x"},
                          {"offset", 512},  {"bytes", 64},    {"from", "(tile - 1) % tiles"},
                          {"op", "sum"}};
  // Every fifth tile also sends at cycle 2 to the tile after next: a second stream on its send
  // port, and a second arrival at that tile's receive port.
  const Json send_far = {{"kind", "send"},
                         {"name", "far"},
                         {"tiles", {{"where", "tile % 5 == 0"}}},
                         {"buffer", "x"},
                         {"offset", 128},
                         {"bytes", 64},
                         {"to", "(tile + 2) % tiles"},
                         {"cycle", 2}};
  const Json recv_far = {{"kind", "recv"},
                         {"name", "far-in"},
                         {"tiles", {{"where", "(tile - 2) % 5 == 0"}}},
                         {"buffer", "x"},
                         // tiles 7 mod 10 write where they send from: a read-write hazard
                         {"offset", "tile % 10 == 7 ? 0 : 256"},
                         {"bytes", 64},
                         {"from", "(tile - 2) % tiles"}};
  // Out of bounds on tiles 13 mod 40; division by zero on tile 77; a listed set (reverse order).
  const Json send_odd = {{"kind", "send"},
                         {"name", "odd"},
                         {"tiles", Json::array({250, 101, 77, 13, 53})},
                         {"buffer", "x"},
                         {"offset", "tile % 40 == 13 ? 1000 : 640"},
                         {"bytes", "64 / (tile - 77) * 0 + 64"},
                         {"to", "(tile + 3) % tiles"},
                         {"cycle", 100}};
  const Json compute = {{"name", "use-y"},
                        {"codelet", "c"},
                        {"cycles", "100 + tile % 17"},
                        {"reads", Json::array({{{"buffer", "y"}, {"offset", 0}, {"bytes", 4}}})}};
  Json supersteps = Json::array();
  supersteps.push_back(
      {{"repeat", "s"},
       {"count", 3},
       {"body", Json::array({{{"name", "step {s}"},
                              {"compute", Json::array({compute})},
                              {"exchange", Json::array({send_next, recv_prev, send_far, recv_far,
                                                        send_odd})}}})}});
  supersteps.push_back({{"name", "stuck"},
                        {"exchange", Json::array({{{"kind", "recv"},
                                                   {"name", "wait"},
                                                   {"tiles", {{"where", "tile % 3 == 0"}}},
                                                   {"buffer", "x"},
                                                   {"offset", 0},
                                                   {"bytes", 64},
                                                   {"from", "(tile + 1) % tiles"}}})}});
  return schedule_json(kTiles, buffers, supersteps);
}

TEST(ParallelEngine, ErrorsAndDeadlockIdenticalForEveryThreadCount) {
  const Json schedule = broken_schedule();
  const Outputs one = run(schedule, small_fabric(kTiles), 1, false);
  // The schedule breaks what it means to (so the comparison is not between two clean runs).
  for (const char* kind :
       {"send-port-conflict", "receive-port-conflict", "read-write-hazard", "out-of-bounds",
        "expression-error", "unmatched-send", "not-produced", "deadlock"}) {
    EXPECT_NE(one.diagnostics.find(kind), std::string::npos) << kind << "\n" << one.diagnostics;
  }
  expect_same_for_every_thread_count(schedule, small_fabric(kTiles), false);
  expect_same_for_every_thread_count(schedule, small_fabric(kTiles), false,
                                     /*stop_on_deadlock=*/false);
}

// 256 tiles x 60 supersteps of unmatched sends: more than the 10000 diagnostics kept.
Json lonely_sends_schedule() {
  const Json lonely = {{"kind", "send"}, {"name", "lonely"}, {"buffer", "x"},
                       {"offset", 0},    {"bytes", 64},      {"to", "(tile + 1) % tiles"}};
  return schedule_json(
      kTiles, Json::array({{{"name", "x"}, {"type", "u8"}, {"bytes", 1024}, {"init", "input"}}}),
      Json::array(
          {{{"repeat", "s"},
            {"count", 60},
            {"body", Json::array({{{"name", "s{s}"}, {"exchange", Json::array({lonely})}}})}}}));
}

TEST(ParallelEngine, DiagnosticsBeyondTheKeptLimitIdenticalForEveryThreadCount) {
  const Json schedule = lonely_sends_schedule();
  const Outputs one = run(schedule, small_fabric(kTiles), 1, false);
  EXPECT_NE(one.diagnostics.find("dropped 5360"), std::string::npos);
  expect_same_for_every_thread_count(schedule, small_fabric(kTiles), false);
}

} // namespace

// The distributed engine. Each schedule has a property the single process would show if the
// ranks got it wrong: a memory digest and --verify over data that crosses ranks every step,
// lossy links (the random generator's order), port conflicts and a read-write hazard (the data
// moves then follow one global order), diagnostics beyond the kept limit, and a deadlock.

TEST(DistributedEngine, AllReduceIdenticalForEveryRankCount) {
  const sim::Fabric fabric = small_fabric(kTiles);
  // Two threads per rank as well: each rank's share is resolved in parts of its own.
  expect_same_for_every_rank_count(ring(fabric, 1, 4096, false), fabric, /*verify=*/true,
                                   true, true, {1, 2});
}

TEST(DistributedEngine, HierarchicalAllReduceOverTwoAndFourChipsIdentical) {
  for (const std::uint32_t chips : {2U, 4U}) {
    const sim::Fabric fabric = small_fabric(kTiles / chips, chips);
    sim::RingOptions options;
    options.kind = "allreduce";
    options.tiles = kTiles;
    options.chips = chips;
    options.bytes = 8192;
    options.algorithm = sim::CollectiveAlgorithm::kHierarchical;
    expect_same_for_every_rank_count(sim::make_ring_schedule(options, fabric), fabric,
                                     /*verify=*/true);
  }
}

/// A reduce-scatter to the flat ring's placement: C sends per tile in each step within a chip
/// (run by the chip's rank alone), then the ring across chips.
TEST(DistributedEngine, ReduceScatterToTheFlatRingsPlacementIdentical) {
  const sim::Fabric fabric = small_fabric(kTiles / 2, 2);
  sim::RingOptions options;
  options.kind = "reduce-scatter";
  options.tiles = kTiles;
  options.chips = 2;
  options.bytes = 8192;
  options.type = sim::ElementType::kI32;
  options.algorithm = sim::CollectiveAlgorithm::kHierarchical;
  options.placement = sim::FragmentPlacement::kRing;
  expect_same_for_every_rank_count(sim::make_ring_schedule(options, fabric), fabric,
                                   /*verify=*/true);
}

TEST(DistributedEngine, MultiChipLossyLinksIdenticalForEveryRankCount) {
  sim::Fabric fabric = small_fabric(kTiles / 4, 4);
  fabric.external.loss_probability = 0.05;
  fabric.external.reorder_window_cycles = 500;
  expect_same_for_every_rank_count(ring(fabric, 4, 4096, true), fabric, /*verify=*/true);
}

TEST(DistributedEngine, TimingOnlyIdenticalForEveryRankCount) {
  const sim::Fabric fabric = small_fabric(kTiles / 2, 2);
  expect_same_for_every_rank_count(ring(fabric, 2, 16384, true), fabric, /*verify=*/false,
                                   /*stop_on_deadlock=*/true, /*move_data=*/false);
}

TEST(DistributedEngine, ErrorsHazardAndDeadlockIdenticalForEveryRankCount) {
  const Json schedule = broken_schedule();
  expect_same_for_every_rank_count(schedule, small_fabric(kTiles), false);
  expect_same_for_every_rank_count(schedule, small_fabric(kTiles), false,
                                   /*stop_on_deadlock=*/false);
}

TEST(DistributedEngine, DiagnosticsBeyondTheKeptLimitIdenticalForEveryRankCount) {
  const Json schedule = lonely_sends_schedule();
  expect_same_for_every_rank_count(schedule, small_fabric(kTiles), false);
}

/// Two chips of 128 tiles, a sync group per chip: supersteps on one chip run on its rank alone
/// (2 ranks: a chip each), the other rank going on to its own. Each chip's steps break rules
/// (sends nobody receives, on both chips in turn, so that the diagnostics of the two ranks must
/// be interleaved in program order), a superstep over all tiles makes the ranks catch up, and
/// with `deadlock` a chip-1 superstep never completes while chip 0 has steps after it: the run
/// must stop there as one process stops, although rank 0 ran ahead.
Json per_chip_schedule(bool deadlock) {
  const Json shift = {{"kind", "send"}, {"name", "shift"}, {"buffer", "x"}, {"offset", 0},
                      {"bytes", 64},    {"to", "chip * tiles_per_chip + (chip_tile + 1) % tiles_per_chip"}};
  const Json shifted = {{"kind", "recv"}, {"name", "shifted"}, {"buffer", "x"}, {"offset", 256},
                        {"bytes", 64},    {"op", "sum"},
                        {"from", "chip * tiles_per_chip + (chip_tile - 1) % tiles_per_chip"}};
  const Json lonely = {{"kind", "send"}, {"name", "lonely"}, {"tiles", {{"where", "tile % 9 == 0"}}},
                       {"buffer", "x"}, {"offset", 128}, {"bytes", 16},
                       {"to", "chip * tiles_per_chip + (chip_tile + 5) % tiles_per_chip"},
                       {"cycle", 40}};
  const Json work = {{"name", "work"}, {"codelet", "c"}, {"cycles", "50 + tile % 13"}};
  Json body = Json::array();
  for (const char* chip : {"chip0", "chip1"}) {
    body.push_back({{"name", std::string(chip) + " step {s}"}, {"sync", chip},
                    {"compute", Json::array({work})},
                    {"exchange", Json::array({shift, shifted, lonely})}});
  }
  Json supersteps = Json::array({{{"repeat", "s"}, {"count", 3}, {"body", body}}});
  supersteps.push_back({{"name", "everyone"}, {"exchange", Json::array({shift, shifted})}});
  if (deadlock) {
    supersteps.push_back({{"name", "chip1 stuck"}, {"sync", "chip1"},
                          {"exchange", Json::array({shifted})}});
  }
  supersteps.push_back({{"repeat", "s"}, {"count", 2}, {"body", body}});
  Json schedule = schedule_json(
      kTiles, Json::array({{{"name", "x"}, {"type", "i32"}, {"bytes", 512}, {"init", "input"}}}),
      supersteps);
  schedule["fabric"] = {{"chips", 2}, {"tiles_per_chip", kTiles / 2}};
  schedule["groups"] = {{"chip0", {{"first", 0}, {"count", kTiles / 2}}},
                        {"chip1", {{"first", kTiles / 2}, {"count", kTiles / 2}}}};
  return schedule;
}

TEST(DistributedEngine, SuperstepsOfOneChipRunOnItsRankAlone) {
  const sim::Fabric fabric = small_fabric(kTiles / 2, 2);
  const Outputs one = run(per_chip_schedule(false), fabric, 1, false);
  EXPECT_NE(one.diagnostics.find("unmatched-send"), std::string::npos) << one.diagnostics;
  expect_same_for_every_rank_count(per_chip_schedule(false), fabric, false);
}

TEST(DistributedEngine, DeadlockInASuperstepRunAloneStopsWhereOneProcessStops) {
  const sim::Fabric fabric = small_fabric(kTiles / 2, 2);
  const Outputs one = run(per_chip_schedule(true), fabric, 1, false);
  EXPECT_NE(one.diagnostics.find("deadlock"), std::string::npos) << one.diagnostics;
  expect_same_for_every_rank_count(per_chip_schedule(true), fabric, false);
}

TEST(DistributedEngine, TilesDealtAsWholeChipsWhenThereAreEnough) {
  // 4 chips of 100 tiles over 3 ranks: chips {0}, {1}, {2, 3}; 1 chip over 3 ranks: tile shares.
  EXPECT_EQ(sim::rank_tiles(400, 4, 100, 3, 0).end, 100U);
  EXPECT_EQ(sim::rank_tiles(400, 4, 100, 3, 1).begin, 100U);
  EXPECT_EQ(sim::rank_tiles(400, 4, 100, 3, 2).begin, 200U);
  EXPECT_EQ(sim::rank_tiles(400, 4, 100, 3, 2).end, 400U);
  EXPECT_EQ(sim::rank_tiles(300, 1, 300, 3, 1).begin, 100U);
  EXPECT_EQ(sim::rank_tiles(300, 1, 300, 3, 1).end, 200U);
}

TEST(DistributedEngine, ComputeCallbacksAndOtherRanksTilesAreRefused) {
  const sim::Fabric fabric = small_fabric(kTiles);
  ThreadHub hub(2);
  std::vector<std::thread> ranks;
  std::vector<std::string> refusals(2);
  for (unsigned r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      ThreadRanks mine(hub, r);
      sim::SimulationOptions options;
      options.threads = 1;
      options.ranks = &mine;
      sim::Simulation s(sim::parse_schedule(ring(fabric, 1, 4096, false), "d.json"), fabric,
                        options);
      try {
        s.on_compute("c", [](sim::TileContext&) -> sim::Cycles { return 1; });
      } catch (const std::logic_error& error) {
        refusals[r] = error.what();
      }
      const sim::TileId other = r == 0 ? kTiles - 1 : 0;
      EXPECT_THROW((void)s.buffer(other, "data"), std::out_of_range) << "rank " << r;
      EXPECT_FALSE(s.buffer(r == 0 ? 0 : kTiles - 1, "data").empty()) << "rank " << r;
    });
  }
  for (std::thread& t : ranks) {
    t.join();
  }
  EXPECT_NE(refusals[0].find("not supported in a distributed run"), std::string::npos);
}
