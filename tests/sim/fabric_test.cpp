// Fabric files: defaults, overrides, strict errors naming the field, geometry and routing.
#include <gtest/gtest.h>

#include "seq2par/sim/fabric.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;

TEST(Fabric, DefaultIsTheCalibratedGc200) {
  const sim::Fabric f = sim::default_fabric();
  EXPECT_EQ(f.chip.tiles, 1472u);
  EXPECT_EQ(f.tile.sram_bytes, 624u * 1024);
  EXPECT_EQ(f.tile.bank_bytes, 16u * 1024);
  EXPECT_EQ(f.tile.threads, 6u);
  // 4 bytes x 1472 tiles x 1.33 GHz: the GC200's 8 TB/s exchange (spec 03 said 8 bytes).
  EXPECT_EQ(f.exchange.send_bytes_per_cycle, 4u);
  EXPECT_EQ(f.exchange.latency_base_cycles, 6u);
  EXPECT_EQ(f.exchange.load_latency_percent, 24u);
  EXPECT_EQ(f.sync.on_chip_cycles, 150u);
  EXPECT_EQ(f.sync.cross_chip_cycles, 1500u);
  // Ten IPU-Links of 32 GB/s each way.
  EXPECT_EQ(f.external.links_per_chip, 10u);
  EXPECT_EQ(f.external.bytes_per_cycle, 24u);
  // Loaded / unloaded IPU-Link latency within Jia et al.'s 4.0-7.7x (scripts/bench calibration).
  EXPECT_EQ(f.external.latency_cycles, 600u);
  EXPECT_EQ(f.external.max_payload_bytes, 256u);
  EXPECT_EQ(f.external.header_bytes, 16u);
  EXPECT_EQ(f.xb.concurrent_grants, 64u);
  EXPECT_EQ(f.xb.release, sim::XbRelease::kOnTransmit);
  EXPECT_EQ(f.xb.transmit, sim::XbTransmit::kParallel);
  EXPECT_GE(f.xoff_threshold(), 1u);
  EXPECT_EQ(f.external.loss_probability, 0.0);
}

/// The model before calibration, field by field: spec 03's table.
TEST(Fabric, LegacyIsTheTableOfSpec03) {
  const sim::Fabric f = sim::legacy_fabric();
  EXPECT_EQ(f.exchange.send_bytes_per_cycle, 8u);
  EXPECT_EQ(f.external.bytes_per_cycle, 32u);
  EXPECT_EQ(f.external.links_per_chip, 0u);
  EXPECT_EQ(f.external.latency_cycles, 2000u);
  EXPECT_EQ(f.xb.queue_packets, 64u);
  EXPECT_EQ(f.xb.concurrent_grants, 1u);
  EXPECT_EQ(f.xb.release, sim::XbRelease::kOnAck);
  EXPECT_EQ(f.xb.transmit, sim::XbTransmit::kSerial);
  EXPECT_EQ(f.sync.on_chip_cycles_per_doubling, 0u);
  EXPECT_EQ(f.sync.cross_chip_cycles_per_doubling, 0u);
  // The shipped file is the same machine.
  const sim::Fabric file = sim::load_fabric(std::string(S2P_SIM_FABRICS_DIR) + "/legacy.json");
  sim::Fabric named = f;
  named.name = file.name;
  EXPECT_EQ(sim::to_json(file).dump(), sim::to_json(named).dump());
}

/// gc200.json spells out the built-in default; gc2.json parses.
TEST(Fabric, ShippedFabricFiles) {
  const sim::Fabric gc200 = sim::load_fabric(std::string(S2P_SIM_FABRICS_DIR) + "/gc200.json");
  sim::Fabric builtin = sim::default_fabric();
  builtin.name = gc200.name;
  EXPECT_EQ(sim::to_json(gc200).dump(), sim::to_json(builtin).dump());
  const sim::Fabric gc2 = sim::load_fabric(std::string(S2P_SIM_FABRICS_DIR) + "/gc2.json");
  EXPECT_EQ(gc2.chip.tiles, 1216u);
  EXPECT_EQ(gc2.chips, 2u);
  EXPECT_EQ(sim::RoutingTable(gc2).parallel(0).size(), 3u); // three links between the two IPUs
}

/// The barrier grows with the group: a tree level per doubling of its tiles on a chip, and of
/// its chips beyond two.
TEST(Fabric, BarrierGrowsWithTilesAndChips) {
  const sim::Fabric f = sim::default_fabric();
  EXPECT_EQ(f.barrier_cycles(1472, 1), 150u);
  EXPECT_EQ(f.barrier_cycles(1024, 1), 140u);
  EXPECT_EQ(f.barrier_cycles(64, 1), 100u);
  EXPECT_EQ(f.barrier_cycles(1, 1), 40u);
  EXPECT_EQ(f.barrier_cycles(1472, 2), 1500u);
  EXPECT_EQ(f.barrier_cycles(1472, 4), 1750u);
  EXPECT_EQ(f.barrier_cycles(1472, 16), 2250u);
  const sim::Fabric legacy = sim::legacy_fabric();
  EXPECT_EQ(legacy.barrier_cycles(64, 1), 150u);
  EXPECT_EQ(legacy.barrier_cycles(1472, 16), 1500u);
}

TEST(Fabric, EveryFieldCanBeOverriddenAndRoundTrips) {
  const sim::Fabric f = sim::parse_fabric_text(R"({
    "chips": 4, "chip": {"tiles": 100, "tiles_per_column": 10},
    "tile": {"sram_bytes": 1000000, "bank_bytes": 1000, "threads": 4, "separate_banks": true},
    "exchange": {"send_bytes_per_cycle": 16, "latency_base_cycles": 3, "latency_cycles_per_hop": 2,
                 "load_latency_percent": 50},
    "sync": {"on_chip_cycles": 10, "cross_chip_cycles": 20, "on_chip_cycles_per_doubling": 1,
             "cross_chip_cycles_per_doubling": 2},
    "external": {"topology": "full", "links_per_chip": 6, "bytes_per_cycle": 64,
                 "latency_cycles": 500, "max_payload_bytes": 128, "header_bytes": 8,
                 "loss_probability": 0.25, "reorder_window_cycles": 40,
                 "resend_timeout_cycles": 3000},
    "xb": {"queue_packets": 100, "control_latency_cycles": 4, "concurrent_grants": 2,
           "release": "on_ack", "transmit": "serial"}})",
                                               "f.json");
  EXPECT_EQ(f.chips, 4u);
  EXPECT_EQ(f.chip.tiles_per_column, 10u);
  EXPECT_TRUE(f.tile.separate_banks);
  EXPECT_EQ(f.exchange.latency_cycles_per_hop, 2u);
  EXPECT_EQ(f.external.topology, sim::Topology::kFull);
  EXPECT_EQ(f.external.loss_probability, 0.25);
  EXPECT_EQ(f.xb.control_latency_cycles, 4u);
  EXPECT_EQ(f.exchange.load_latency_percent, 50u);
  EXPECT_EQ(f.sync.cross_chip_cycles_per_doubling, 2u);
  EXPECT_EQ(f.external.links_per_chip, 6u);
  EXPECT_EQ(f.xb.concurrent_grants, 2u);
  EXPECT_EQ(f.xb.release, sim::XbRelease::kOnAck);
  EXPECT_EQ(f.xb.transmit, sim::XbTransmit::kSerial);
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
  EXPECT_EQ(f.on_chip_transfer_cycles(65), 17u); // 4 bytes per cycle
}

TEST(Fabric, XoffThresholdLeavesRoomForPacketsInFlight) {
  sim::Fabric f = sim::default_fabric();
  const std::uint32_t in_flight = f.packets_in_flight_after_xoff();
  EXPECT_GT(in_flight, 1u);
  EXPECT_EQ(f.xoff_threshold() + in_flight, f.xb.queue_packets);
  // Every granted tile may still emit that many: the margin grows with the grants.
  f.xb.concurrent_grants = 1;
  EXPECT_EQ(f.packets_in_flight_after_xoff() * 64, in_flight);
  f = sim::legacy_fabric();
  f.xb.control_latency_cycles = 1000;
  EXPECT_EQ(f.xoff_threshold(), 0u); // such a fabric is refused by parse_fabric
}

TEST(Routing, RingTakesTheShorterWayAndFullIsDirect) {
  sim::Fabric f = sim::legacy_fabric(); // one link per neighbour and direction
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

/// With links_per_chip, a chip's links are shared among its neighbours, and a packet may take
/// any link towards its route's next chip.
TEST(Routing, SeveralLinksPerChipShareTheNeighbours) {
  sim::Fabric f = sim::default_fabric(); // 10 links per chip
  f.chips = 4;
  const sim::RoutingTable ring(f);
  EXPECT_EQ(ring.links().size(), 40u);
  const auto& forward = ring.parallel(ring.route(0, 1).front());
  EXPECT_EQ(forward.size(), 5u);
  EXPECT_EQ(ring.links()[forward[4]].name, "LF0.4");
  EXPECT_EQ(ring.parallel(ring.route(0, 3).front()).size(), 5u);
  f.chips = 2; // both neighbours are the same chip: all ten links lead there
  EXPECT_EQ(sim::RoutingTable(f).parallel(0).size(), 10u);
  f.chips = 3;
  f.external.links_per_chip = 3; // odd: the forward link gets the larger half
  const sim::RoutingTable odd(f);
  EXPECT_EQ(odd.parallel(odd.route(0, 1).front()).size(), 2u);
  EXPECT_EQ(odd.parallel(odd.route(0, 2).front()).size(), 1u);
  f.external.topology = sim::Topology::kFull;
  f.chips = 4;
  f.external.links_per_chip = 9;
  EXPECT_EQ(sim::RoutingTable(f).links().size(), 36u); // 3 towards each of 3 peers
}

} // namespace
