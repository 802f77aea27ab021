// The BSP engine: barrier variants, independent sync groups, event-driven cost.
#include <gtest/gtest.h>

#include <chrono>

#include "sim_test_util.h"

namespace {

using namespace s2p_test;

/// Two tiles computing 100 and 200 cycles, then one 64-byte transfer (16 cycles at the GC200's
/// 4 bytes per cycle, latency 7).
Json two_tiles(const char* barrier, int from, int to) {
  return schedule_json(
      2, Json::array({{{"name", "x"}, {"type", "u8"}, {"bytes", 64}, {"init", "input"}}}),
      Json::array({{{"name", "work"},
                    {"barrier", barrier},
                    {"compute", Json::array({{{"name", "c"}, {"cycles", "100 * (tile + 1)"}}})},
                    {"exchange", Json::array({{{"kind", "send"},
                                               {"name", "s"},
                                               {"tiles", Json::array({from})},
                                               {"buffer", "x"},
                                               {"bytes", 64},
                                               {"to", to}},
                                              {{"kind", "recv"},
                                               {"name", "r"},
                                               {"tiles", Json::array({to})},
                                               {"buffer", "x"},
                                               {"bytes", 64},
                                               {"from", from}}})}}}));
}

TEST(Engine, BarrierVariantA_ComputeThenExchange) {
  const auto s = simulate(two_tiles("a", 0, 1), small_fabric(2));
  // Barrier at max(100, 200) + 150 = 350; words leave 350..366 and land 357..373.
  EXPECT_EQ(s.report().total_cycles, 373u);
  EXPECT_EQ(s.report().tiles_stats[0].end, 366u); // (a) alone: tile 0 is free once its send is out
  EXPECT_EQ(s.report().supersteps[0].sync_cycles, 150u);
  EXPECT_EQ(s.report().supersteps[0].compute_cycles, 200u);
  EXPECT_EQ(s.report().supersteps[0].exchange_cycles, 23u);
}

TEST(Engine, BarrierVariantC_Both) {
  const auto s = simulate(two_tiles("c", 0, 1), small_fabric(2));
  EXPECT_EQ(s.report().total_cycles, 373u + 150u);
  EXPECT_EQ(s.report().tiles_stats[0].end, 523u);
  EXPECT_EQ(s.report().supersteps[0].sync_cycles, 300u);
}

TEST(Engine, BarrierVariantB_ExchangeThenCompute) {
  // Without barrier (a), tile 1 sends as soon as it has computed: 200..216, landing 207..223.
  const auto s = simulate(two_tiles("b", 1, 0), small_fabric(2));
  EXPECT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  EXPECT_EQ(s.report().total_cycles, 223u + 150u);
  // Data sent to a tile still computing is a hazard the simulator reports.
  const auto early = simulate(two_tiles("b", 0, 1), small_fabric(2));
  const sim::Diagnostic* d = find(early.diagnostics(), "arrives-during-compute");
  ASSERT_NE(d, nullptr) << all_text(early.diagnostics());
  EXPECT_EQ(d->tile, 1u);
}

TEST(Engine, SyncGroupsRunTheirBspCyclesIndependently) {
  Json json = schedule_json(
      4, Json::array(),
      Json::array({{{"repeat", "i"},
                    {"count", 3},
                    {"body", Json::array({{{"name", "slow {i}"},
                                           {"sync", "slow"},
                                           {"compute",
                                            Json::array({{{"name", "c"}, {"cycles", 1000}}})}}})}},
                   {{"name", "fast"},
                    {"sync", "fast"},
                    {"compute", Json::array({{{"name", "c"}, {"cycles", 10}}})}},
                   {{"name", "join"}}}));
  json["groups"] = {{"slow", {{"first", 0}, {"count", 2}}}, {"fast", {{"first", 2}, {"count", 2}}}};
  const auto s = simulate(json, small_fabric(4));
  const auto& steps = s.report().supersteps;
  ASSERT_EQ(steps.size(), 5u);
  // A group of 2 of the chip's 4 tiles syncs one tree level below the whole chip: 150 - 10.
  const sim::Cycles group = 140;
  // "fast" is listed after three "slow" supersteps but starts at cycle 0: its tiles never
  // waited for the other group.
  EXPECT_EQ(steps[3].start, 0u);
  EXPECT_EQ(steps[3].end, 10u + group);
  EXPECT_EQ(steps[2].end, 3 * (1000u + group));
  // The global superstep joins them: it starts when the last tile arrives.
  EXPECT_EQ(steps[4].start, 10u + group);
  EXPECT_EQ(s.report().total_cycles, 3 * (1000u + group) + 150u);
}

TEST(Engine, CostGrowsWithWorkNotWithSimulatedCycles) {
  // A petacycle of compute is one addition for an event-driven engine (a per-cycle loop would
  // not finish within the test timeout).
  const Json json = schedule_json(
      64, Json::array(),
      Json::array(
          {{{"repeat", "i"},
            {"count", 100},
            {"body", Json::array({{{"compute",
                                    Json::array({{{"name", "c"},
                                                  {"cycles", "1000000000000000 + tile"}}})}}})}}}));
  const auto start = std::chrono::steady_clock::now();
  const auto s = simulate(json, small_fabric(64));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(s.report().total_cycles, 100u * (1000000000000000u + 63u + 150u));
  EXPECT_EQ(s.report().tiles_stats[0].compute_cycles, 100u * 1000000000000000u);
}

TEST(Engine, SimulatedTimeOverflowIsAnErrorNotAWrapAround) {
  const Json json = schedule_json(
      1, Json::array(),
      Json::array(
          {{{"repeat", "i"},
            {"count", 4},
            {"body",
             Json::array({{{"compute", Json::array({{{"name", "c"},
                                                     {"cycles", "9223372036854775807"}}})}}})}}}));
  EXPECT_NE(input_error([&] { (void)simulate(json, small_fabric(1)); }).find("overflows"),
            std::string::npos);
}

TEST(Engine, TooManyWarpsForTheTile) {
  const Json json = schedule_json(
      1, Json::array(),
      Json::array({{{"compute", Json::array({{{"name", "c"}, {"cycles", 1}, {"warps", 7}}})}}}));
  EXPECT_NE(find(simulate(json, small_fabric(1)).diagnostics(), "too-many-warps"), nullptr);
}

} // namespace
