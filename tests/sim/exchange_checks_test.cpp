// Hand-made broken schedules: each rule of the machine gives its own error, naming superstep,
// tile and entry - and the corrected schedule gives none (so every check can fail both ways).
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace {

using namespace s2p_test;

Json buffer(const char* name, const char* init = "input", std::uint64_t bytes = 256) {
  return {{"name", name}, {"type", "u8"}, {"bytes", bytes}, {"init", init}};
}
Json send(const char* name, Json tiles, Json to, std::uint64_t offset = 0, std::uint64_t bytes = 64,
          Json cycle = 0, const char* buffer = "x") {
  return {{"kind", "send"},
          {"name", name},
          {"tiles", std::move(tiles)},
          {"buffer", buffer},
          {"offset", offset},
          {"bytes", bytes},
          {"to", std::move(to)},
          {"cycle", std::move(cycle)}};
}
Json recv(const char* name, Json tiles, Json from, std::uint64_t offset = 0,
          std::uint64_t bytes = 64, const char* buffer = "x") {
  return {{"kind", "recv"},   {"name", name},   {"tiles", std::move(tiles)}, {"buffer", buffer},
          {"offset", offset}, {"bytes", bytes}, {"from", std::move(from)}};
}
Json one_step(Json exchange, Json compute = Json::array()) {
  return Json::array(
      {{{"name", "step"}, {"compute", std::move(compute)}, {"exchange", std::move(exchange)}}});
}

/// Expects exactly the located diagnostic of `kind`; returns its message.
std::string expect_error(const sim::Simulation& s, const std::string& kind, std::uint32_t superstep,
                         sim::TileId tile, const std::string& entry) {
  const sim::Diagnostic* d = find(s.diagnostics(), kind);
  EXPECT_NE(d, nullptr) << "no " << kind << " in:\n" << all_text(s.diagnostics());
  if (d == nullptr) {
    return "";
  }
  EXPECT_EQ(d->superstep, superstep);
  EXPECT_EQ(d->tile, tile);
  EXPECT_EQ(d->entry, entry);
  const std::string text = d->to_string();
  EXPECT_NE(text.find("superstep " + std::to_string(superstep)), std::string::npos) << text;
  EXPECT_NE(text.find("tile " + std::to_string(tile)), std::string::npos) << text;
  EXPECT_NE(text.find("entry '" + entry + "'"), std::string::npos) << text;
  return d->message;
}

void expect_clean(const sim::Simulation& s) {
  EXPECT_FALSE(s.diagnostics().has_errors()) << all_text(s.diagnostics());
  EXPECT_TRUE(s.report().completed);
}

TEST(ExchangeChecks, ReceivePortConflict) {
  // Tiles 0 and 2 both send 64 bytes (16 cycles) to tile 1 at cycle 0; both arrive 7 cycles
  // later.
  const auto make = [](Json second_cycle) {
    return schedule_json(
        3, Json::array({buffer("x")}),
        one_step(Json::array({send("a", Json::array({0}), 1, 0),
                              send("b", Json::array({2}), 1, 64, 64, std::move(second_cycle)),
                              recv("ra", Json::array({1}), 0, 0),
                              recv("rb", Json::array({1}), 2, 64)})));
  };
  const auto broken = simulate(make(0), small_fabric(3));
  const std::string message = expect_error(broken, "receive-port-conflict", 0, 1, "rb");
  EXPECT_NE(message.find("[7, 23)"), std::string::npos) << message;
  EXPECT_NE(message.find("tile 2"), std::string::npos) << message;
  expect_clean(simulate(make(16), small_fabric(3))); // one cycle after the first stream ends
  EXPECT_NE(find(simulate(make(15), small_fabric(3)).diagnostics(), "receive-port-conflict"),
            nullptr);
}

TEST(ExchangeChecks, SendPortConflictButMulticastIsOneStream) {
  const auto make = [](Json cycle) {
    return schedule_json(
        3, Json::array({buffer("x")}),
        one_step(
            Json::array({send("a", Json::array({0}), 1),
                         send("b", Json::array({0}), 2, 64, 64, std::move(cycle)),
                         recv("ra", Json::array({1}), 0), recv("rb", Json::array({2}), 0, 64)})));
  };
  expect_error(simulate(make(4), small_fabric(3)), "send-port-conflict", 0, 0, "b");
  expect_clean(simulate(make(16), small_fabric(3)));
  const Json multicast =
      schedule_json(3, Json::array({buffer("x")}),
                    one_step(Json::array({send("m", Json::array({0}), Json::array({1, 2})),
                                          recv("r", Json::array({1, 2}), 0)})));
  expect_clean(simulate(multicast, small_fabric(3)));
}

/// The receive-port conflict above with dynamic timing on one or both sends: the port serves
/// them one after the other instead of reporting an error.
TEST(ExchangeChecks, DynamicTimingWaitsForTheReceivePort) {
  const auto make = [](bool first_dynamic) {
    Json a = send("a", Json::array({0}), 1, 0);
    Json b = send("b", Json::array({2}), 1, 64);
    b["timing"] = "dynamic";
    if (first_dynamic) {
      a["timing"] = "dynamic";
    }
    return schedule_json(3, Json::array({buffer("x")}),
                         one_step(Json::array({a, b, recv("ra", Json::array({1}), 0, 0),
                                               recv("rb", Json::array({1}), 2, 64)})));
  };
  for (const bool both : {false, true}) {
    const auto s = simulate(make(both), small_fabric(3));
    expect_clean(s);
    // Fixed: 'a' lands in [7, 23) and 'b' waits for the port: [23, 39). Both dynamic: two of the
    // chip's three tiles send, so both take 7 + round(7 * 24% * 2/3) = 8 cycles: 'a' lands in
    // [8, 24) and 'b' after it, [24, 40). The barrier (150) comes first.
    EXPECT_EQ(s.report().total_cycles, 150u + (both ? 40u : 39u));
    EXPECT_EQ(s.report().tiles_stats[1].receive_port_cycles, 32u);
  }
}

/// A dynamic send waits for its tile's send port (behind a fixed send) rather than conflicting;
/// a fixed send in the way of another fixed one is still an error.
TEST(ExchangeChecks, DynamicTimingWaitsForTheSendPort) {
  Json b = send("b", Json::array({0}), 2, 64, 64, 4);
  b["timing"] = "dynamic";
  const Json json = schedule_json(
      3, Json::array({buffer("x")}),
      one_step(Json::array({send("a", Json::array({0}), 1), b, recv("ra", Json::array({1}), 0),
                            recv("rb", Json::array({2}), 0, 64)})));
  const auto s = simulate(json, small_fabric(3));
  expect_clean(s);
  // 'a' sends in [0, 16); 'b' asked for cycle 4 and leaves at 16 for tile 2, two hops away, one
  // sender of three: latency 8 + round(8 * 24% / 3) = 9, so it lands in [25, 41).
  EXPECT_EQ(s.report().total_cycles, 150u + 41u);
  EXPECT_EQ(s.report().tiles_stats[0].send_port_cycles, 32u);
}

TEST(ExchangeChecks, OutOfBoundsWrite) {
  const auto make = [](std::uint64_t offset) {
    return schedule_json(2, Json::array({buffer("x")}),
                         one_step(Json::array({send("s", Json::array({0}), 1),
                                               recv("r", Json::array({1}), 0, offset)})));
  };
  const std::string message =
      expect_error(simulate(make(200), small_fabric(2)), "out-of-bounds", 0, 1, "r");
  EXPECT_NE(message.find("[200, 264) of buffer 'x', which has 256 bytes"), std::string::npos)
      << message;
  expect_clean(simulate(make(192), small_fabric(2)));
}

TEST(ExchangeChecks, SendingDataNotYetProduced) {
  const auto make = [](bool produce) {
    Json compute = Json::array();
    if (produce) {
      compute.push_back(
          {{"name", "fill"},
           {"tiles", Json::array({0})},
           {"cycles", 10},
           {"writes", Json::array({{{"buffer", "y"}, {"offset", 0}, {"bytes", 64}}})}});
    }
    return schedule_json(2, Json::array({buffer("x"), buffer("y", "none")}),
                         one_step(Json::array({send("s", Json::array({0}), 1, 0, 64, 0, "y"),
                                               recv("r", Json::array({1}), 0, 0, 64, "y")}),
                                  std::move(compute)));
  };
  const std::string message =
      expect_error(simulate(make(false), small_fabric(2)), "not-produced", 0, 0, "s");
  EXPECT_NE(message.find("bytes [0, 64) of buffer 'y'"), std::string::npos) << message;
  expect_clean(simulate(make(true), small_fabric(2)));

  // What arrives in an exchange phase can be sent on only in a later one.
  const Json relay = schedule_json(
      3, Json::array({buffer("y", "none")}),
      Json::array({{{"name", "first"},
                    {"compute",
                     Json::array({{{"name", "fill"},
                                   {"tiles", Json::array({0})},
                                   {"cycles", 1},
                                   {"writes", Json::array({{{"buffer", "y"}, {"bytes", 64}}})}}})},
                    {"exchange", Json::array({send("s0", Json::array({0}), 1, 0, 64, 0, "y"),
                                              recv("r1", Json::array({1}), 0, 0, 64, "y"),
                                              send("s1", Json::array({1}), 2, 0, 64, 0, "y"),
                                              recv("r2", Json::array({2}), 1, 0, 64, "y")})}},
                   {{"name", "second"},
                    {"exchange", Json::array({send("t1", Json::array({1}), 2, 0, 64, 0, "y"),
                                              recv("t2", Json::array({2}), 1, 64, 64, "y")})}}}));
  const auto relayed = simulate(relay, small_fabric(3));
  expect_error(relayed, "not-produced", 0, 1, "s1");
  EXPECT_EQ(relayed.diagnostics().error_count(), 2u)
      << all_text(relayed.diagnostics()); // + its read/write hazard
}

TEST(ExchangeChecks, TileOutOfMemory) {
  sim::Fabric fabric = small_fabric(2);
  fabric.tile.sram_bytes = 1000;
  fabric.tile.bank_bytes = 100;
  const auto make = [](std::uint64_t bytes) {
    return schedule_json(
        2, Json::array({buffer("x", "input", 600), buffer("big", "zero", bytes)}),
        one_step(Json::array({send("s", Json::array({0}), 1), recv("r", Json::array({1}), 0)})));
  };
  const auto oom = simulate(make(500), fabric);
  const std::string message = expect_error(oom, "out-of-memory", 0, 0, "x");
  EXPECT_NE(message.find("1100 bytes live at the peak, the tile has 1000 bytes"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'x' 600 bytes, 'big' 500 bytes"), std::string::npos) << message;
  EXPECT_TRUE(oom.report().completed); // the run still goes to the end and reports
  EXPECT_EQ(oom.report().tiles_stats[1].peak_memory, 1100u);
  expect_clean(simulate(make(400), fabric));

  // Live ranges: buffers live at different times share the memory.
  Json staged = make(500);
  staged["buffers"][1]["live"] = {{"first", 1}, {"last", 1}};
  staged["buffers"][0]["live"] = {{"first", 0}, {"last", 0}};
  staged["supersteps"].push_back({{"name", "later"}});
  expect_clean(simulate(staged, fabric));
}

TEST(ExchangeChecks, ExplicitAddressesOverlapAndBanks) {
  sim::Fabric fabric = small_fabric(1);
  fabric.tile.separate_banks = true;
  fabric.tile.bank_bytes = 256;
  const auto make = [](std::int64_t base) {
    Json a = buffer("a", "input", 100); // bank 0
    a["base"] = 0;
    Json b = buffer("b");
    b["base"] = base;
    return schedule_json(1, Json::array({a, b}), Json::array({{{"name", "idle"}}}));
  };
  expect_error(simulate(make(50), fabric), "buffers-overlap", 0, 0, "b");
  expect_error(simulate(make(128), fabric), "bank-shared", 0, 0,
               "b"); // [128, 384) reaches into bank 0
  expect_clean(simulate(make(512), fabric));
}

TEST(ExchangeChecks, UnmatchedSend) {
  const Json json = schedule_json(2, Json::array({buffer("x")}),
                                  one_step(Json::array({send("lonely", Json::array({0}), 1)})));
  const std::string message =
      expect_error(simulate(json, small_fabric(2)), "unmatched-send", 0, 0, "lonely");
  EXPECT_NE(message.find("to tile 1, which has no matching receive"), std::string::npos) << message;
}

TEST(ExchangeChecks, UnmatchedReceiveIsADeadlockReportedWithWhoWaitsOnWhat) {
  const Json json = schedule_json(
      3, Json::array({buffer("x")}),
      Json::array(
          {{{"name", "ok"},
            {"exchange",
             Json::array({send("s", Json::array({0}), 1), recv("r", Json::array({1}), 0)})}},
           {{"name", "stuck"}, {"exchange", Json::array({recv("wait", Json::array({2}), 1)})}},
           {{"name", "never"}}}));
  const auto s = simulate(json, small_fabric(3));
  const std::string message = expect_error(s, "deadlock", 1, 2, "wait");
  EXPECT_NE(
      message.find("waits in entry 'wait' for 64 bytes from tile 1, which sends nothing to it"),
      std::string::npos)
      << message;
  ASSERT_TRUE(s.report().deadlock.has_value());
  EXPECT_EQ(s.report().deadlock->superstep, 1u);
  EXPECT_EQ(s.report().deadlock->blocked.size(), 1u);
  EXPECT_FALSE(s.report().completed);
  EXPECT_EQ(s.report().supersteps.size(), 2u); // stopped: "never" did not run
  EXPECT_EQ(s.report_json()["status"], "deadlock");
}

TEST(ExchangeChecks, SizeMismatchMisalignedAndPeersOutOfRange) {
  Json json = schedule_json(
      2, Json::array({{{"name", "f"}, {"type", "f32"}, {"bytes", 64}, {"init", "input"}}}),
      one_step(Json::array({send("s", Json::array({0}), 1, 0, 16, 0, "f"),
                            recv("r", Json::array({1}), 0, 0, 12, "f")})));
  expect_error(simulate(json, small_fabric(2)), "size-mismatch", 0, 1, "r");
  json["supersteps"][0]["exchange"][1]["bytes"] = 16;
  json["supersteps"][0]["exchange"][1]["offset"] = 2;
  json["supersteps"][0]["exchange"][1]["op"] = "sum";
  expect_error(simulate(json, small_fabric(2)), "misaligned", 0, 1, "r");
  json["supersteps"][0]["exchange"][1]["offset"] = 0;
  json["supersteps"][0]["exchange"][0]["to"] = "tile + 5";
  expect_error(simulate(json, small_fabric(2)), "tile-out-of-range", 0, 0, "s");
  json["supersteps"][0]["exchange"][0]["to"] = "tile / (tile - tile)";
  const std::string message =
      expect_error(simulate(json, small_fabric(2)), "expression-error", 0, 0, "s");
  EXPECT_NE(message.find("supersteps[0].exchange[0].to"), std::string::npos) << message;
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
}

TEST(ExchangeChecks, ReadWriteHazardAndWriteConflict) {
  const Json hazard = schedule_json(
      2, Json::array({buffer("x")}),
      one_step(Json::array({send("a", Json::array({0}), 1, 0), recv("ra", Json::array({1}), 0, 0),
                            send("b", Json::array({1}), 0, 0, 64, 16),
                            recv("rb", Json::array({0}), 1, 32)})));
  expect_error(simulate(hazard, small_fabric(2)), "read-write-hazard", 0, 0, "a");
  const Json conflict = schedule_json(
      3, Json::array({buffer("x")}),
      one_step(
          Json::array({send("a", Json::array({0}), 2, 0), send("b", Json::array({1}), 2, 0, 64, 64),
                       recv("ra", Json::array({2}), 0, 0), recv("rb", Json::array({2}), 1, 32)})));
  EXPECT_NE(find(simulate(conflict, small_fabric(3)).diagnostics(), "write-conflict"), nullptr);
}

TEST(ExchangeChecks, EveryViolationIsReportedNotJustTheFirst) {
  // Every tile of an 8-tile ring writes out of bounds: eight diagnostics, one per tile.
  const Json json =
      schedule_json(8, Json::array({buffer("x")}),
                    one_step(Json::array({send("s", "all", "(tile + 1) % tiles"),
                                          recv("r", "all", "(tile - 1) % tiles", 250)})));
  const auto s = simulate(json, small_fabric(8), false, false);
  std::size_t out_of_bounds = 0;
  for (const auto& d : s.diagnostics().items()) {
    out_of_bounds += d.kind == "out-of-bounds";
  }
  EXPECT_EQ(out_of_bounds, 8u);
}

} // namespace
