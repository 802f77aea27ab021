// Schedule templates: reading, repeat loops, lets, tile sets, groups and per-tile resolution.
#include <gtest/gtest.h>

#include "seq2par/sim/resolve.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

Json one_buffer(const char* bytes = "64") {
  return Json::array({{{"name", "x"}, {"type", "u8"}, {"bytes", bytes}, {"init", "input"}}});
}

TEST(Schedule, RepeatUnrollsWithLoopValuesInNames) {
  const Json json = schedule_json(
      4, one_buffer(),
      Json::array(
          {{{"repeat", "i"},
            {"count", "tiles - 1"},
            {"body", Json::array({{{"name", "step {i}"}},
                                  {{"repeat", "j"},
                                   {"count", 2},
                                   {"body", Json::array({{{"name", "inner {i}.{j}"}}})}}})}},
           {{"name", "last"}}}));
  const sim::Schedule schedule = sim::parse_schedule(json, "s.json");
  const auto program = sim::expand_program(schedule);
  std::vector<std::string> names;
  for (const auto& step : program) {
    names.push_back(step.name);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"step 0", "inner 0.0", "inner 0.1", "step 1", "inner 1.0",
                                      "inner 1.1", "step 2", "inner 2.0", "inner 2.1", "last"}));
}

TEST(Schedule, ParamsSeeEarlierParamsAndTheScheduleSize) {
  Json json = schedule_json(8, one_buffer("half"), Json::array());
  json["params"] = {{"half", "tiles / 2 * 8"}, {"quarter", "half / 2"}};
  const sim::Schedule schedule = sim::parse_schedule(json, "s.json");
  ASSERT_EQ(schedule.params.size(), 2u);
  EXPECT_EQ(schedule.params[0].second, 32);
  EXPECT_EQ(schedule.params[1].second, 16);
  json["params"] = {{"a", "b + 1"}, {"b", 1}};
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(json, "s.json");
            }).find("field 'params.a': column 1: unknown name 'b'"),
            std::string::npos);
  json["params"] = {{"a", "tile"}};
  EXPECT_NE(input_error([&] {
              (void)sim::parse_schedule(json, "s.json");
            }).find("'tile' cannot be used here"),
            std::string::npos);
}

TEST(Schedule, ResolvesOneTemplateIntoPerTileLists) {
  // A shift: tile i sends its 16-byte slice i to tile (i + 1) mod N, stored at slot i there.
  const Json exchange = Json::array({
      {{"kind", "send"},
       {"name", "shift.send"},
       {"let", {{"slot", "tile * 16"}}},
       {"buffer", "x"},
       {"offset", "slot"},
       {"bytes", 16},
       {"to", "(tile + 1) % tiles"},
       {"cycle", "tile % 2"}},
      {{"kind", "recv"},
       {"name", "shift.recv"},
       {"buffer", "x"},
       {"offset", "(tile - 1) % tiles * 16"},
       {"bytes", 16},
       {"from", "(tile - 1) % tiles"}},
  });
  const Json json =
      schedule_json(4, one_buffer(), Json::array({{{"name", "shift"}, {"exchange", exchange}}}));
  const sim::Schedule schedule = sim::parse_schedule(json, "s.json");
  sim::Diagnostics diagnostics;
  const sim::Resolver resolver(schedule, diagnostics);
  sim::ResolvedSuperstep step;
  resolver.resolve_tile(0, 3, step, diagnostics);
  ASSERT_EQ(step.sends.size(), 1u);
  EXPECT_EQ(step.sends[0].source.offset, 48u);
  EXPECT_EQ(step.sends[0].cycle, 1u);
  ASSERT_EQ(step.destinations_of(step.sends[0]).size(), 1u);
  EXPECT_EQ(step.destinations_of(step.sends[0])[0], 0u);
  resolver.resolve_tile(0, 0, step, diagnostics);
  ASSERT_EQ(step.receives.size(), 1u);
  EXPECT_EQ(step.receives[0].from, 3u);
  EXPECT_EQ(step.receives[0].destination.offset, 48u);
  resolver.resolve(0, step, diagnostics);
  EXPECT_EQ(step.sends.size(), 4u);
  EXPECT_EQ(step.receives.size(), 4u);
  EXPECT_FALSE(diagnostics.has_errors()) << all_text(diagnostics);
}

TEST(Schedule, TileSetsAndMulticast) {
  const Json exchange = Json::array({
      {{"kind", "send"},
       {"name", "bcast"},
       {"tiles", Json::array({0})},
       {"buffer", "x"},
       {"bytes", 8},
       {"to", Json::array({1, 2, 3})}},
      {{"kind", "recv"},
       {"name", "take"},
       {"tiles", {{"first", 1}, {"count", "tiles - 1"}}},
       {"buffer", "x"},
       {"bytes", 8},
       {"from", 0}},
      {{"kind", "send"},
       {"name", "evens"},
       {"tiles", {{"where", "tile % 2 == 0 && tile > 0"}}},
       {"buffer", "x"},
       {"offset", 8},
       {"bytes", 8},
       {"to", "tile - 1"},
       {"tag", "e"},
       {"cycle", 16}},
      {{"kind", "recv"},
       {"name", "odds"},
       {"tiles", {{"first", 1}, {"count", 1}, {"stride", 2}}},
       {"buffer", "x"},
       {"offset", 8},
       {"bytes", 8},
       {"from", "tile + 1"},
       {"tag", "e"}},
  });
  const Json json = schedule_json(4, one_buffer(), Json::array({{{"exchange", exchange}}}));
  sim::Simulation simulation = simulate(json, small_fabric(4), true);
  EXPECT_FALSE(simulation.diagnostics().has_errors()) << all_text(simulation.diagnostics());
  EXPECT_EQ(simulation.report().supersteps.at(0).transfers, 4u);
  const auto x0 = simulation.read<std::uint8_t>(0, "x");
  for (sim::TileId t = 1; t < 4; ++t) {
    const auto x = simulation.read<std::uint8_t>(t, "x");
    EXPECT_TRUE(std::equal(x0.begin(), x0.begin() + 8, x.begin())) << "tile " << t;
  }
  // Tile 1 got tile 2's bytes 8..15 (tagged transfer).
  EXPECT_EQ(simulation.report().tiles_stats[1].bytes_in, 16u);
  EXPECT_EQ(simulation.report().tiles_stats[0].bytes_out, 8u); // a multicast leaves the tile once
}

TEST(Schedule, SyncGroupsAndBuffersPerTile) {
  Json json = schedule_json(6,
                            Json::array({{{"name", "x"},
                                          {"type", "f32"},
                                          {"bytes", "(tile + 1) * 4"},
                                          {"tiles", {{"where", "tile < 4"}}},
                                          {"init", "zero"},
                                          {"base", "tile * 64"},
                                          {"live", {{"first", 0}, {"last", 1}}}}}),
                            Json::array({{{"sync", "left"}}, {{"sync", "right"}}}));
  json["groups"] = {{"left", {{"first", 0}, {"count", 3}}}, {"right", Json::array({3, 4, 5})}};
  const sim::Schedule schedule = sim::parse_schedule(json, "s.json");
  sim::Diagnostics diagnostics;
  const sim::Resolver resolver(schedule, diagnostics);
  EXPECT_EQ(resolver.group_tiles(0), (std::vector<sim::TileId>{0, 1, 2}));
  EXPECT_EQ(resolver.group_tiles(1), (std::vector<sim::TileId>{3, 4, 5}));
  EXPECT_TRUE(resolver.buffer(3, 0).held);
  EXPECT_EQ(resolver.buffer(3, 0).bytes, 16u);
  EXPECT_EQ(resolver.buffer(3, 0).base, 192);
  EXPECT_FALSE(resolver.buffer(4, 0).held);
  EXPECT_TRUE(resolver.is_live(0, 1));
  EXPECT_FALSE(resolver.is_live(0, 2));
}

TEST(Schedule, ReadingErrorsNameFieldAndColumn) {
  const auto error = [](Json json) {
    return input_error([&] { (void)sim::parse_schedule(json, "s.json"); });
  };
  Json good = schedule_json(2, one_buffer(),
                            Json::array({{{"exchange", Json::array({{{"kind", "send"},
                                                                     {"name", "a"},
                                                                     {"buffer", "x"},
                                                                     {"bytes", 8},
                                                                     {"to", "tile + 1"}}})}}}));
  EXPECT_EQ(error(good), "");
  Json bad = good;
  bad["supersteps"][0]["exchange"][0]["offset"] = "tlie * 2";
  EXPECT_EQ(error(bad), "s.json: field 'supersteps[0].exchange[0].offset': column 1: unknown name "
                        "'tlie' in \"tlie * 2\"");
  bad = good;
  bad["supersteps"][0]["exchange"][0]["buffer"] = "y";
  EXPECT_NE(error(bad).find("field 'supersteps[0].exchange[0].buffer': unknown buffer 'y'"),
            std::string::npos);
  bad = good;
  bad["supersteps"][0]["exchange"][0]["kind"] = "sned";
  EXPECT_NE(error(bad).find("field 'supersteps[0].exchange[0].kind'"), std::string::npos);
  bad = good;
  bad.erase("kernel");
  EXPECT_EQ(error(bad), "s.json: field 'kernel': required field is missing");
  bad = good;
  bad["buffers"][0]["type"] = "f16";
  EXPECT_NE(error(bad).find("field 'buffers[0].type'"), std::string::npos);
  bad = good;
  bad["supersteps"][0]["barrier"] = "d";
  EXPECT_NE(error(bad).find("field 'supersteps[0].barrier'"), std::string::npos);
  bad = good;
  bad["supersteps"][0]["sync"] = "nogroup";
  EXPECT_NE(error(bad).find("unknown sync group 'nogroup'"), std::string::npos);
  bad = good;
  bad["tiles"] = 0;
  EXPECT_NE(error(bad).find("field 'tiles': must be at least 1"), std::string::npos);
  bad = good;
  bad["supersteps"] = Json::array(
      {{{"repeat", "s"}, {"count", "1000000000"}, {"body", Json::array({Json::object()})}}});
  EXPECT_NE(input_error([&] {
              const auto s = sim::parse_schedule(bad, "s.json");
              (void)sim::expand_program(s);
            }).find("more than"),
            std::string::npos);
}

} // namespace
