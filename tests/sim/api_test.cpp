// The C++ API the runtime uses: buffers, compute callbacks with costs, step-wise running.
#include <gtest/gtest.h>

#include <set>

#include "sim_test_util.h"

namespace {

using namespace s2p_test;

/// Every tile squares its 4 floats (codelet "square"), then sends them to the next tile.
Json square_and_shift() {
  return schedule_json(
      4,
      Json::array({{{"name", "v"}, {"type", "f32"}, {"bytes", 16}, {"init", "zero"}},
                   {{"name", "in"}, {"type", "f32"}, {"bytes", 16}, {"init", "none"}}}),
      Json::array(
          {{{"name", "square"},
            {"compute",
             Json::array({{{"name", "sq"},
                           {"codelet", "square"},
                           {"cycles", 5},
                           {"writes", Json::array({{{"buffer", "v"}, {"bytes", 16}}})}}})},
            {"exchange", Json::array({{{"kind", "send"},
                                       {"name", "s"},
                                       {"buffer", "v"},
                                       {"bytes", 16},
                                       {"to", "(tile + 1) % tiles"}},
                                      {{"kind", "recv"},
                                       {"name", "r"},
                                       {"buffer", "in"},
                                       {"bytes", 16},
                                       {"from", "(tile - 1) % tiles"}}})}},
           {{"name", "accumulate"},
            {"compute",
             Json::array({{{"name", "acc"},
                           {"codelet", "accumulate"},
                           {"cycles", 1},
                           {"reads", Json::array({{{"buffer", "in"}, {"bytes", 16}}})}}})}}}));
}

TEST(Api, ComputeCallbacksSeeTheirTileAndReportTheirCost) {
  sim::Simulation s(sim::parse_schedule(square_and_shift(), "api"), small_fabric(4));
  for (sim::TileId t = 0; t < 4; ++t) {
    const std::vector<float> v{1.0f * t, 2.0f, 3.0f, -1.0f};
    s.write<float>(t, "v", v);
  }
  std::vector<sim::TileId> seen;
  s.on_compute("square", [&](sim::TileContext& tile) -> sim::Cycles {
    seen.push_back(tile.tile);
    EXPECT_EQ(tile.codelet, "square");
    auto bytes = tile.buffer("v");
    std::vector<float> v(4);
    std::memcpy(v.data(), bytes.data(), 16);
    for (float& x : v) {
      x *= x;
    }
    std::memcpy(bytes.data(), v.data(), 16);
    return 100 + tile.tile; // measured cost replaces the schedule's 5 cycles
  });
  EXPECT_TRUE(s.step());
  EXPECT_EQ(seen, (std::vector<sim::TileId>{0, 1, 2, 3}));
  EXPECT_EQ(s.read<float>(1, "in"), (std::vector<float>{0.0f, 4.0f, 9.0f, 1.0f}));
  EXPECT_EQ(s.read<float>(0, "in"), (std::vector<float>{9.0f, 4.0f, 9.0f, 1.0f}));
  EXPECT_FALSE(s.step()); // the second and last superstep
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.report().supersteps[0].compute_cycles, 103u);
  EXPECT_EQ(s.report().tiles_stats[3].compute_cycles, 103u + 1u);
  EXPECT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  EXPECT_THROW((void)s.buffer(0, "nope"), std::out_of_range);
  EXPECT_THROW((void)s.buffer(9, "v"), std::out_of_range);
}

TEST(Api, WithoutCallbacksTheScheduleCostIsUsed) {
  sim::Simulation s(sim::parse_schedule(square_and_shift(), "api"), small_fabric(4));
  s.run();
  EXPECT_EQ(s.report().supersteps[0].compute_cycles, 5u);
}

TEST(Api, ReadingWhatNothingProducedIsReported) {
  Json json = square_and_shift();
  json["supersteps"].erase(0); // nobody fills "in" before "accumulate" reads it
  sim::Simulation s(sim::parse_schedule(json, "api"), small_fabric(4));
  s.run();
  const sim::Diagnostic* d = find(s.diagnostics(), "not-produced");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->entry, "acc");
}

TEST(Api, ScheduleMustFitTheFabric) {
  Json json = square_and_shift();
  json["fabric"] = {{"chips", 2}, {"tiles_per_chip", 2}};
  const std::string message = input_error([&] {
    sim::SimulationOptions options;
    options.fabric_source = "f.json";
    (void)sim::Simulation(sim::parse_schedule(json, "api"), small_fabric(4), options);
  });
  EXPECT_EQ(message, "f.json: field 'chips': the schedule api needs 2 chips, the fabric has 1");
  EXPECT_EQ(sim::default_fabric_for(sim::parse_schedule(json, "api")).chips, 2u);
}

// The memory report's fullest tiles: the highest peaks first, each with what was live there.
TEST(Api, ReportListsTheFullestTilesFirst) {
  Json json = square_and_shift();
  // Tile 2 holds 4 KiB more of `v`, tile 5 (of six) 1 KiB more: the fullest are 2, 5, then the
  // rest in tile order.
  json["tiles"] = 6;
  json["buffers"][0]["bytes"] = "16 + (tile == 2 ? 4096 : 0) + (tile == 5 ? 1024 : 0)";
  sim::Simulation s(sim::parse_schedule(json, "api"), small_fabric(6));
  s.run();
  const Json report = s.report_json();
  const Json& memory = report["tiles"]["memory"];
  const Json& fullest = memory.at("fullest");
  ASSERT_EQ(fullest.size(), 5u) << memory.dump(1);
  const std::vector<int> order{2, 5, 0, 1, 3};
  for (std::size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(fullest[i]["tile"], order[i]) << fullest.dump(1);
  EXPECT_EQ(fullest[0]["peak_bytes"], 16 + 4096 + 16);
  EXPECT_EQ(fullest[0]["peak_bytes"], memory["max_peak_bytes"]);
  EXPECT_EQ(fullest[0]["at_peak"]["data"], 16 + 4096 + 16);
}

TEST(Api, HostMemoryBudgetIsEnforcedBeforeAllocating) {
  Json json = square_and_shift();
  json["buffers"][0]["bytes"] = "1099511627776"; // 1 TiB per tile
  sim::SimulationOptions options;
  options.max_host_bytes = 1ULL << 30;
  const std::string message = input_error(
      [&] { (void)sim::Simulation(sim::parse_schedule(json, "api"), small_fabric(4), options); });
  EXPECT_NE(message.find("--timing-only"), std::string::npos) << message;
  options.move_data = false; // timing-only still checks everything, and reports the overflow
  sim::Simulation s(sim::parse_schedule(json, "api"), small_fabric(4), options);
  s.run();
  EXPECT_NE(find(s.diagnostics(), "out-of-memory"), nullptr);
}

} // namespace

namespace {

TEST(Api, InputBuffersHoldTheDocumentedDeterministicValues) {
  using namespace s2p_test;
  Json json = schedule_json(
      3,
      Json::array({{{"name", "v"}, {"type", "i16"}, {"bytes", 2 * 1000}, {"init", "input"}},
                   {{"name", "u"}, {"type", "u32"}, {"bytes", 4 * 77}, {"init", "input"}}}),
      Json::array());
  sim::SimulationOptions options;
  options.init_seed = 99;
  const sim::Simulation s(sim::parse_schedule(json, "api"), small_fabric(3), options);
  std::set<std::int16_t> seen;
  for (sim::TileId t = 0; t < 3; ++t) {
    const auto v = s.read<std::int16_t>(t, "v");
    for (std::size_t e = 0; e < v.size(); ++e) {
      ASSERT_EQ(v[e],
                sim::input_value(sim::InitPattern::kInts, 99, t, 0, e, sim::ElementType::kI16))
          << t << " " << e;
      seen.insert(v[e]);
    }
    const auto u = s.read<std::uint32_t>(t, "u");
    for (std::size_t e = 0; e < u.size(); ++e) {
      ASSERT_EQ(u[e],
                sim::input_value(sim::InitPattern::kInts, 99, t, 1, e, sim::ElementType::kU32));
    }
  }
  EXPECT_EQ(*seen.begin(), -8);
  EXPECT_EQ(*seen.rbegin(), 8);
  EXPECT_NE(s.read<std::int16_t>(0, "v"), s.read<std::int16_t>(1, "v"));
}

} // namespace
