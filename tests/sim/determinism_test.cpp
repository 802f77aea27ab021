// Same inputs and seed -> byte-identical report and trace.
#include <gtest/gtest.h>

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
