// Reading and writing fabric files (`seq2par.fabric/1`): every field optional, strictly typed.
#include <cmath>

#include "seq2par/sim/fabric.h"
#include "support/files.h"
#include "support/json_reader.h"

namespace s2p::sim {

namespace {

using detail::Json;
using detail::ObjectReader;

constexpr std::uint64_t kMaxTotalTiles = 1u << 22;
constexpr std::uint64_t kMaxCycles = 1'000'000'000'000ULL; // keeps sums far from 2^64

void read_chip(ObjectReader& top, Fabric::Chip& chip) {
  const Json* json = top.find("chip");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("chip"));
  chip.tiles = static_cast<std::uint32_t>(r.uint_or("tiles", chip.tiles, 1, 1u << 20));
  chip.tiles_per_column = static_cast<std::uint32_t>(
      r.uint_or("tiles_per_column", std::min(chip.tiles_per_column, chip.tiles), 1, chip.tiles));
  chip.clock_mhz = static_cast<std::uint32_t>(r.uint_or("clock_mhz", chip.clock_mhz, 1, 1'000'000));
  r.finish();
}

void read_tile(ObjectReader& top, Fabric::Tile& tile) {
  const Json* json = top.find("tile");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("tile"));
  tile.sram_bytes = r.uint_or("sram_bytes", tile.sram_bytes, 1, 1ULL << 40);
  tile.bank_bytes =
      r.uint_or("bank_bytes", std::min(tile.bank_bytes, tile.sram_bytes), 1, tile.sram_bytes);
  tile.threads = static_cast<std::uint32_t>(r.uint_or("threads", tile.threads, 1, 1024));
  tile.separate_banks = r.bool_or("separate_banks", tile.separate_banks);
  r.finish();
}

void read_exchange(ObjectReader& top, Fabric::Exchange& exchange) {
  const Json* json = top.find("exchange");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("exchange"));
  exchange.send_bytes_per_cycle = static_cast<std::uint32_t>(
      r.uint_or("send_bytes_per_cycle", exchange.send_bytes_per_cycle, 1, 1u << 20));
  exchange.latency_base_cycles = static_cast<std::uint32_t>(
      r.uint_or("latency_base_cycles", exchange.latency_base_cycles, 0, 1'000'000'000));
  exchange.latency_cycles_per_hop = static_cast<std::uint32_t>(
      r.uint_or("latency_cycles_per_hop", exchange.latency_cycles_per_hop, 0, 1'000'000));
  exchange.load_latency_percent = static_cast<std::uint32_t>(
      r.uint_or("load_latency_percent", exchange.load_latency_percent, 0, 100'000));
  r.finish();
}

void read_sync(ObjectReader& top, Fabric::Sync& sync) {
  const Json* json = top.find("sync");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("sync"));
  sync.on_chip_cycles = r.uint_or("on_chip_cycles", sync.on_chip_cycles, 0, kMaxCycles);
  sync.cross_chip_cycles = r.uint_or("cross_chip_cycles", sync.cross_chip_cycles, 0, kMaxCycles);
  sync.on_chip_cycles_per_doubling =
      r.uint_or("on_chip_cycles_per_doubling", sync.on_chip_cycles_per_doubling, 0, kMaxCycles);
  sync.cross_chip_cycles_per_doubling = r.uint_or(
      "cross_chip_cycles_per_doubling", sync.cross_chip_cycles_per_doubling, 0, 1'000'000'000);
  r.finish();
}

void read_external(ObjectReader& top, Fabric::External& external) {
  const Json* json = top.find("external");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("external"));
  const std::string topology = r.string_or("topology", std::string(to_string(external.topology)));
  if (topology == "ring") {
    external.topology = Topology::kRing;
  } else if (topology == "full") {
    external.topology = Topology::kFull;
  } else {
    detail::fail_field(r.source(), r.field("topology"),
                       "expected \"ring\" or \"full\", got " + detail::describe(Json(topology)));
  }
  external.links_per_chip = static_cast<std::uint32_t>(
      r.uint_or("links_per_chip", external.links_per_chip, 0, 4096));
  external.bytes_per_cycle = static_cast<std::uint32_t>(
      r.uint_or("bytes_per_cycle", external.bytes_per_cycle, 1, 1u << 20));
  external.latency_cycles = r.uint_or("latency_cycles", external.latency_cycles, 0, 1'000'000'000);
  external.max_payload_bytes = static_cast<std::uint32_t>(
      r.uint_or("max_payload_bytes", external.max_payload_bytes, 1, 1u << 20));
  external.header_bytes =
      static_cast<std::uint32_t>(r.uint_or("header_bytes", external.header_bytes, 0, 1u << 16));
  external.loss_probability =
      r.number_or("loss_probability", external.loss_probability, 0.0, 1.0, true);
  external.reorder_window_cycles =
      r.uint_or("reorder_window_cycles", external.reorder_window_cycles, 0, 1'000'000'000);
  external.resend_timeout_cycles =
      r.uint_or("resend_timeout_cycles", external.resend_timeout_cycles, 1, kMaxCycles);
  r.finish();
}

void read_xb(ObjectReader& top, Fabric::Xb& xb) {
  const Json* json = top.find("xb");
  if (json == nullptr) {
    return;
  }
  ObjectReader r(*json, top.source(), top.field("xb"));
  xb.queue_packets =
      static_cast<std::uint32_t>(r.uint_or("queue_packets", xb.queue_packets, 1, 1u << 20));
  xb.control_latency_cycles =
      r.uint_or("control_latency_cycles", xb.control_latency_cycles, 0, 1'000'000);
  xb.concurrent_grants = static_cast<std::uint32_t>(
      r.uint_or("concurrent_grants", xb.concurrent_grants, 1, 1u << 20));
  const std::string release = r.string_or("release", std::string(to_string(xb.release)));
  if (release == "on_ack") {
    xb.release = XbRelease::kOnAck;
  } else if (release == "on_transmit") {
    xb.release = XbRelease::kOnTransmit;
  } else {
    detail::fail_field(r.source(), r.field("release"),
                       "expected \"on_ack\" or \"on_transmit\", got " +
                           detail::describe(Json(release)));
  }
  const std::string transmit = r.string_or("transmit", std::string(to_string(xb.transmit)));
  if (transmit == "serial") {
    xb.transmit = XbTransmit::kSerial;
  } else if (transmit == "parallel") {
    xb.transmit = XbTransmit::kParallel;
  } else {
    detail::fail_field(r.source(), r.field("transmit"),
                       "expected \"serial\" or \"parallel\", got " +
                           detail::describe(Json(transmit)));
  }
  r.finish();
}

} // namespace

Fabric parse_fabric(const Json& json, std::string_view source) {
  Fabric fabric = default_fabric();
  ObjectReader top(json, source, "");
  if (const Json* format = top.find("format")) {
    if (!format->is_string() || format->get<std::string>() != kFabricFormat) {
      detail::fail_field(source, "format",
                         "expected \"" + std::string(kFabricFormat) + "\", got " +
                             detail::describe(*format));
    }
  }
  fabric.name = top.string_or("name", std::string(source));
  fabric.chips = static_cast<std::uint32_t>(top.uint_or("chips", fabric.chips, 1, 4096));
  read_chip(top, fabric.chip);
  read_tile(top, fabric.tile);
  read_exchange(top, fabric.exchange);
  read_sync(top, fabric.sync);
  read_external(top, fabric.external);
  read_xb(top, fabric.xb);
  top.finish();

  if (fabric.total_tiles() > kMaxTotalTiles) {
    detail::fail_field(source, "chips",
                       "chips x chip.tiles = " + std::to_string(fabric.total_tiles()) +
                           " tiles, more than the simulator's limit of " +
                           std::to_string(kMaxTotalTiles));
  }
  if (fabric.xoff_threshold() < 1) {
    detail::fail_field(
        source, "xb.queue_packets",
        "must be larger than " + std::to_string(fabric.packets_in_flight_after_xoff()) +
            ": that many packets can still reach the XB after it sends XOFF (control latency " +
            std::to_string(fabric.xb.control_latency_cycles) + " cycles each way, " +
            std::to_string(fabric.xb.concurrent_grants) + " tiles granted at once)");
  }
  return fabric;
}

Fabric parse_fabric_text(std::string_view text, std::string_view source) {
  return parse_fabric(detail::parse_json_text(text, source), source);
}

Fabric load_fabric(const std::filesystem::path& path) {
  return parse_fabric_text(detail::read_text_file(path), path.string());
}

Json to_json(const Fabric& fabric) {
  Json json;
  json["format"] = kFabricFormat;
  json["name"] = fabric.name;
  json["chips"] = fabric.chips;
  json["chip"] = {{"tiles", fabric.chip.tiles},
                  {"tiles_per_column", fabric.chip.tiles_per_column},
                  {"clock_mhz", fabric.chip.clock_mhz}};
  json["tile"] = {{"sram_bytes", fabric.tile.sram_bytes},
                  {"bank_bytes", fabric.tile.bank_bytes},
                  {"threads", fabric.tile.threads},
                  {"separate_banks", fabric.tile.separate_banks}};
  json["exchange"] = {{"send_bytes_per_cycle", fabric.exchange.send_bytes_per_cycle},
                      {"latency_base_cycles", fabric.exchange.latency_base_cycles},
                      {"latency_cycles_per_hop", fabric.exchange.latency_cycles_per_hop},
                      {"load_latency_percent", fabric.exchange.load_latency_percent}};
  json["sync"] = {{"on_chip_cycles", fabric.sync.on_chip_cycles},
                  {"cross_chip_cycles", fabric.sync.cross_chip_cycles},
                  {"on_chip_cycles_per_doubling", fabric.sync.on_chip_cycles_per_doubling},
                  {"cross_chip_cycles_per_doubling", fabric.sync.cross_chip_cycles_per_doubling}};
  json["external"] = {{"topology", to_string(fabric.external.topology)},
                      {"links_per_chip", fabric.external.links_per_chip},
                      {"bytes_per_cycle", fabric.external.bytes_per_cycle},
                      {"latency_cycles", fabric.external.latency_cycles},
                      {"max_payload_bytes", fabric.external.max_payload_bytes},
                      {"header_bytes", fabric.external.header_bytes},
                      {"loss_probability", fabric.external.loss_probability},
                      {"reorder_window_cycles", fabric.external.reorder_window_cycles},
                      {"resend_timeout_cycles", fabric.external.resend_timeout_cycles}};
  json["xb"] = {{"queue_packets", fabric.xb.queue_packets},
                {"control_latency_cycles", fabric.xb.control_latency_cycles},
                {"concurrent_grants", fabric.xb.concurrent_grants},
                {"release", to_string(fabric.xb.release)},
                {"transmit", to_string(fabric.xb.transmit)}};
  return json;
}

} // namespace s2p::sim
