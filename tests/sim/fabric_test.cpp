// Fabric files: defaults, overrides, strict errors naming the field, geometry and routing.
#include <gtest/gtest.h>

#include "seq2par/sim/fabric.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

TEST(Fabric, DefaultIsTheGc200LikeTableOfSpec03) {
  const sim::Fabric f = sim::default_fabric();
  EXPECT_EQ(f.chip.tiles, 1472u);
  EXPECT_EQ(f.tile.sram_bytes, 624u * 1024);
  EXPECT_EQ(f.tile.bank_bytes, 16u * 1024);
  EXPECT_EQ(f.tile.threads, 6u);
  EXPECT_EQ(f.exchange.send_bytes_per_cycle, 8u);
  EXPECT_EQ(f.exchange.latency_base_cycles, 6u);
  EXPECT_EQ(f.sync.on_chip_cycles, 150u);
  EXPECT_EQ(f.sync.cross_chip_cycles, 1500u);
  EXPECT_EQ(f.external.bytes_per_cycle, 32u);
  EXPECT_EQ(f.external.latency_cycles, 2000u);
  EXPECT_EQ(f.external.max_payload_bytes, 256u);
  EXPECT_EQ(f.external.header_bytes, 16u);
  EXPECT_EQ(f.xb.queue_packets, 64u);
  EXPECT_EQ(f.external.loss_probability, 0.0);
}

TEST(Fabric, EveryFieldCanBeOverriddenAndRoundTrips) {
  const sim::Fabric f = sim::parse_fabric_text(R"({
    "chips": 4, "chip": {"tiles": 100, "tiles_per_column": 10},
    "tile": {"sram_bytes": 1000000, "bank_bytes": 1000, "threads": 4, "separate_banks": true},
    "exchange": {"send_bytes_per_cycle": 16, "latency_base_cycles": 3, "latency_cycles_per_hop": 2},
    "sync": {"on_chip_cycles": 10, "cross_chip_cycles": 20},
    "external": {"topology": "full", "bytes_per_cycle": 64, "latency_cycles": 500,
                 "max_payload_bytes": 128, "header_bytes": 8, "loss_probability": 0.25,
                 "reorder_window_cycles": 40, "resend_timeout_cycles": 3000},
    "xb": {"queue_packets": 100, "control_latency_cycles": 4}})",
                                               "f.json");
  EXPECT_EQ(f.chips, 4u);
  EXPECT_EQ(f.chip.tiles_per_column, 10u);
  EXPECT_TRUE(f.tile.separate_banks);
  EXPECT_EQ(f.exchange.latency_cycles_per_hop, 2u);
  EXPECT_EQ(f.external.topology, sim::Topology::kFull);
  EXPECT_EQ(f.external.loss_probability, 0.25);
  EXPECT_EQ(f.xb.control_latency_cycles, 4u);
  const sim::Fabric again = sim::parse_fabric(sim::to_json(f), "again");
  EXPECT_EQ(sim::to_json(again).dump(), sim::to_json(f).dump());
}

TEST(Fabric, ErrorsNameTheField) {
  const auto error = [](const std::string& text) {
    return input_error([&] { (void)sim::parse_fabric_text(text, "fabric.json"); });
  };
  EXPECT_EQ(error(R"({"chip": {"tiles": "abc"}})"),
            "fabric.json: field 'chip.tiles': expected a positive integer, got \"abc\"");
  EXPECT_EQ(error(R"({"chip": {"tilez": 3}})").substr(0, 48),
            "fabric.json: field 'chip.tilez': unknown field (");
  EXPECT_NE(error(R"({"tile": {"sram_bytes": -5}})").find("field 'tile.sram_bytes'"),
            std::string::npos);
  EXPECT_NE(error(R"({"tile": {"sram_bytes": 1e300}})").find("field 'tile.sram_bytes'"),
            std::string::npos);
  EXPECT_NE(error(R"({"chips": 3.5})").find("field 'chips'"), std::string::npos);
  EXPECT_NE(
      error(R"({"external": {"loss_probability": 1}})").find("field 'external.loss_probability'"),
      std::string::npos);
  EXPECT_NE(error(R"({"external": {"topology": "mesh"}})").find("field 'external.topology'"),
            std::string::npos);
  EXPECT_NE(error(R"({"xb": {"queue_packets": 5}})").find("field 'xb.queue_packets'"),
            std::string::npos);
  EXPECT_NE(error(R"({"chips": 4096, "chip": {"tiles": 65536}})").find("field 'chips'"),
            std::string::npos);
  EXPECT_NE(error(R"([1, 2])").find("expected an object"), std::string::npos);
  EXPECT_NE(error(R"({"chip": {"tiles": 4})").find("fabric.json:1:"), std::string::npos);
  EXPECT_NE(error(R"({"format": "seq2par.fabric/2"})").find("field 'format'"), std::string::npos);
}

TEST(Fabric, SerpentineGridMakesConsecutiveTilesNeighbours) {
  sim::Fabric f = sim::default_fabric();
  f.chip.tiles_per_column = 4;
  EXPECT_EQ(f.position(0).row, 0u);
  EXPECT_EQ(f.position(3).row, 3u);
  EXPECT_EQ(f.position(4).column, 1u);
  EXPECT_EQ(f.position(4).row, 3u); // up the second column
  for (std::uint32_t t = 0; t + 1 < 64; ++t) {
    EXPECT_EQ(f.hops(t, t + 1), 1u) << t;
  }
  EXPECT_EQ(f.hops(0, 7), 1u + 0u); // column 1 row 0 is next to column 0 row 0
  EXPECT_EQ(f.on_chip_latency(0, 2), 6u + 2u);
  EXPECT_EQ(f.on_chip_transfer_cycles(65), 9u);
}

TEST(Fabric, XoffThresholdLeavesRoomForPacketsInFlight) {
  sim::Fabric f = sim::default_fabric();
  const std::uint32_t in_flight = f.packets_in_flight_after_xoff();
  EXPECT_GT(in_flight, 1u);
  EXPECT_EQ(f.xoff_threshold() + in_flight, f.xb.queue_packets);
  f.xb.control_latency_cycles = 1000;
  EXPECT_EQ(f.xoff_threshold(), 0u); // such a fabric is refused by parse_fabric
}

TEST(Routing, RingTakesTheShorterWayAndFullIsDirect) {
  sim::Fabric f = sim::default_fabric();
  f.chips = 5;
  const sim::RoutingTable ring(f);
  EXPECT_EQ(ring.route(0, 1).size(), 1u);
  EXPECT_EQ(ring.route(0, 2).size(), 2u);
  EXPECT_EQ(ring.route(0, 4).size(), 1u); // backwards
  EXPECT_EQ(ring.links()[ring.route(0, 4).front()].name, "LB0");
  EXPECT_EQ(ring.max_route_hops(), 2u);
  f.external.topology = sim::Topology::kFull;
  const sim::RoutingTable full(f);
  EXPECT_EQ(full.links().size(), 20u);
  EXPECT_EQ(full.max_route_hops(), 1u);
  f.chips = 2;
  f.external.topology = sim::Topology::kRing;
  EXPECT_EQ(sim::RoutingTable(f).links().size(), 2u); // LF0 and LB0 are the same link
}

} // namespace
