// Same inputs and seed -> byte-identical report and trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "seq2par/sim/collectives.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

struct Outputs {
  std::string report;
  std::string trace;
};

Outputs run(std::uint64_t seed) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 8;
  options.chips = 2;
  options.bytes = 4096;
  options.bidirectional = true;
  sim::Fabric fabric = small_fabric(16, 2);
  fabric.external.loss_probability = 0.05;
  fabric.external.reorder_window_cycles = 500;
  sim::SimulationOptions sim_options;
  sim_options.seed = seed;
  sim_options.trace_tiles = {0, 3, 4};
  sim::Simulation s(sim::parse_schedule(sim::make_ring_schedule(options, fabric), "det.json"),
                    fabric, sim_options);
  s.run();
  (void)s.verify();
  std::ostringstream trace;
  s.write_trace(trace);
  return {s.report_json().dump(1), trace.str()};
}

TEST(Determinism, TwoRunsGiveByteIdenticalReportsAndTraces) {
  const Outputs a = run(42);
  const Outputs b = run(42);
  EXPECT_EQ(a.report, b.report);
  EXPECT_EQ(a.trace, b.trace);
  // The seed does matter for timing (so the comparison above is not vacuous)...
  const Outputs c = run(43);
  EXPECT_NE(a.report, c.report);
  // ...but not for the data.
  const auto digest = [](const std::string& report) {
    return nlohmann::json::parse(report)["memory_digest"].get<std::string>();
  };
  EXPECT_EQ(digest(a.report), digest(c.report));
}

// The memory digest hashes each tile on its own (in parallel) and folds the tiles in order: a
// flipped bit anywhere - in any of the four lanes a tile's words go round, or in its tail - and
// the same bytes on another tile both change it.
TEST(Determinism, MemoryDigestSeesEveryByteAndWhichTileHoldsIt) {
  sim::RingOptions options;
  options.kind = "allreduce";
  options.tiles = 4;
  options.bytes = 100; // three 32-byte rounds of the lanes and a 4-byte tail
  const sim::Fabric fabric = small_fabric(4, 1);
  sim::SimulationOptions run_options;
  run_options.threads = 2;
  sim::Simulation s(sim::parse_schedule(sim::make_ring_schedule(options, fabric), "d.json"),
                    fabric, run_options);
  const std::string base = s.memory_digest();
  const auto data = s.buffer(2, "data");
  for (const std::size_t i : {0u, 9u, 17u, 31u, 32u, 95u, 96u, 99u}) {
    data[i] ^= std::byte{1};
    EXPECT_NE(s.memory_digest(), base) << "byte " << i;
    data[i] ^= std::byte{1};
  }
  EXPECT_EQ(s.memory_digest(), base);
  const auto other = s.buffer(1, "data");
  std::swap_ranges(data.begin(), data.end(), other.begin());
  EXPECT_NE(s.memory_digest(), base);
}

TEST(Determinism, TraceIsChromeTraceJsonWithOneTrackPerTracedTile) {
  const auto trace = nlohmann::json::parse(run(1).trace);
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::set<std::uint64_t> tile_tracks;
  bool xb_counter = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().rfind("tile ", 0) == 0) {
      tile_tracks.insert(e["tid"].get<std::uint64_t>());
    }
    xb_counter = xb_counter || (e["ph"] == "C" && e["name"] == "XB queue");
    if (e["ph"] == "X") {
      ASSERT_TRUE(e.contains("dur"));
    }
  }
  EXPECT_EQ(tile_tracks, (std::set<std::uint64_t>{0, 3, 4}));
  EXPECT_TRUE(xb_counter);
}

} // namespace
