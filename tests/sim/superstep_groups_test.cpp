// Folding supersteps into groups for the HTML report's timeline: a ring all-reduce folds into
// its two phases, supersteps that differ stay apart, a repeated block is one group, and the
// groups' sums are the supersteps' sums.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "seq2par/sim/collectives.h"
#include "seq2par/sim/report.h"
#include "sim_test_util.h"

namespace {

using s2p_test::Json;
namespace sim = s2p::sim;

Json ring_supersteps(std::uint32_t tiles) {
  sim::RingOptions ring;
  ring.tiles = tiles;
  ring.bytes = 4096;
  const auto fabric = s2p_test::small_fabric(tiles);
  auto simulation = s2p_test::simulate(sim::make_ring_schedule(ring, fabric), fabric);
  return simulation.report_json()["supersteps"];
}

// A report superstep; the k-th of a list starts at 100 k and lasts 100 cycles.
Json step(std::size_t k, const std::string& name, const std::string& sync = "all",
          const std::string& barrier = "a") {
  return {{"index", k},
          {"name", name},
          {"sync", sync},
          {"barrier", barrier},
          {"start", 100 * k},
          {"compute_cycles", 10 + k},
          {"sync_cycles", 20},
          {"exchange_cycles", 3 * k},
          {"end", 100 * k + 100},
          {"transfers", k},
          {"external_transfers", 0},
          {"bytes", 8 * k}};
}

Json steps_named(const std::vector<std::string>& names) {
  Json steps = Json::array();
  for (const std::string& name : names)
    steps.push_back(step(steps.size(), name));
  return steps;
}

std::vector<std::size_t> counts(const std::vector<sim::SuperstepGroup>& groups) {
  std::vector<std::size_t> out;
  for (const auto& g : groups)
    out.push_back(g.count());
  return out;
}

TEST(SuperstepGroups, PatternsReplaceEveryRunOfDigits) {
  EXPECT_EQ(sim::superstep_pattern("reduce-scatter step 182"), "reduce-scatter step #");
  EXPECT_EQ(sim::superstep_pattern("f32x4 stage 10 of 12"), "f#x# stage # of #");
  EXPECT_EQ(sim::superstep_pattern("forall"), "forall");
  EXPECT_EQ(sim::superstep_pattern(""), "");
}

TEST(SuperstepGroups, ARingAllReduceFoldsIntoItsTwoPhases) {
  const Json steps = ring_supersteps(32);
  ASSERT_EQ(steps.size(), 62u);
  const auto groups = sim::group_supersteps(steps, "r.json");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].patterns, std::vector<std::string>{"reduce-scatter step #"});
  EXPECT_EQ(groups[1].patterns, std::vector<std::string>{"all-gather step #"});
  EXPECT_EQ(counts(groups), (std::vector<std::size_t>{31, 31}));
  EXPECT_EQ(groups[1].first, 31u);
  EXPECT_EQ(groups[0].first_name, "reduce-scatter step 0");
  EXPECT_EQ(groups[0].last_name, "reduce-scatter step 30");
  EXPECT_EQ(groups[1].end, steps.back()["end"].get<std::uint64_t>());
}

TEST(SuperstepGroups, TotalsAreTheSumsOfTheSupersteps) {
  const Json steps = ring_supersteps(24);
  sim::PhaseCycles expected;
  std::uint64_t transfers = 0, bytes = 0;
  for (const Json& s : steps) {
    expected.sync += s["sync_cycles"].get<std::uint64_t>();
    expected.exchange += s["exchange_cycles"].get<std::uint64_t>();
    expected.compute += s["compute_cycles"].get<std::uint64_t>();
    transfers += s["transfers"].get<std::uint64_t>();
    bytes += s["bytes"].get<std::uint64_t>();
  }
  sim::PhaseCycles summed;
  std::uint64_t group_transfers = 0, group_bytes = 0;
  std::size_t next = 0;
  for (const auto& g : sim::group_supersteps(steps, "r.json")) {
    EXPECT_EQ(g.first, next) << "every superstep in exactly one group, in order";
    next += g.count();
    summed.sync += g.cycles.sync;
    summed.exchange += g.cycles.exchange;
    summed.compute += g.cycles.compute;
    group_transfers += g.transfers;
    group_bytes += g.bytes;
  }
  EXPECT_EQ(next, steps.size());
  EXPECT_GT(expected.total(), 0u);
  EXPECT_EQ(summed.sync, expected.sync);
  EXPECT_EQ(summed.exchange, expected.exchange);
  EXPECT_EQ(summed.compute, expected.compute);
  EXPECT_EQ(group_transfers, transfers);
  EXPECT_EQ(group_bytes, bytes);
}

TEST(SuperstepGroups, DifferentSuperstepsAreNotMerged) {
  Json steps = steps_named({"load", "compute 0", "compute 1", "compute 2", "compute 3", "compute 4",
                            "step 1a", "step 2b", "store"});
  steps[3]["sync"] = "left half"; // another sync group
  steps[4]["barrier"] = "c";      // another barrier variant
  const auto groups = sim::group_supersteps(steps, "r.json");
  EXPECT_EQ(counts(groups), (std::vector<std::size_t>{1, 2, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(groups[1].patterns, std::vector<std::string>{"compute #"});
  EXPECT_EQ(groups[1].shortest, 100u);
  EXPECT_EQ(groups[1].start, 100u);
  EXPECT_EQ(groups[1].end, 300u);
}

TEST(SuperstepGroups, ARepeatedBlockIsOneGroup) {
  const auto groups = sim::group_supersteps(
      steps_named({"compute 0", "exchange 0", "compute 1", "exchange 1", "compute 2", "exchange 2",
                   "result", "a", "a", "b", "a", "a", "b"}),
      "r.json");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].period, 2u);
  EXPECT_EQ(groups[0].repeats, 3u);
  EXPECT_EQ(groups[0].patterns, (std::vector<std::string>{"compute #", "exchange #"}));
  EXPECT_EQ(groups[1].count(), 1u);
  // "a a b" twice covers six supersteps, more than the run "a a".
  EXPECT_EQ(groups[2].period, 3u);
  EXPECT_EQ(groups[2].repeats, 2u);
}

TEST(SuperstepGroups, AMissingFieldIsNamed) {
  Json steps = steps_named({"a", "b"});
  steps[1].erase("end");
  EXPECT_NE(s2p_test::input_error([&] {
              (void)sim::group_supersteps(steps, "r.json");
            }).find("r.json: field 'supersteps[1].end': missing"),
            std::string::npos);
  steps = steps_named({"a"});
  steps[0]["sync_cycles"] = -3;
  EXPECT_NE(s2p_test::input_error([&] {
              (void)sim::group_supersteps(steps, "r.json");
            }).find("field 'supersteps[0].sync_cycles': expected a non-negative integer"),
            std::string::npos);
}

} // namespace
