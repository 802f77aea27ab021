// Geometry and cost functions of the fabric model.
#include "seq2par/sim/fabric.h"

#include <algorithm>

namespace s2p::sim {

Fabric default_fabric() {
  return Fabric{};
}

Fabric legacy_fabric() {
  Fabric fabric;
  fabric.name = "legacy (the model before calibration)";
  fabric.exchange.send_bytes_per_cycle = 8;
  fabric.exchange.load_latency_percent = 0;
  fabric.sync.on_chip_cycles_per_doubling = 0;
  fabric.sync.cross_chip_cycles_per_doubling = 0;
  fabric.external.links_per_chip = 0;
  fabric.external.bytes_per_cycle = 32;
  fabric.external.latency_cycles = 2000;
  fabric.xb.queue_packets = 64;
  fabric.xb.concurrent_grants = 1;
  fabric.xb.release = XbRelease::kOnAck;
  fabric.xb.transmit = XbTransmit::kSerial;
  return fabric;
}

std::string_view to_string(Topology topology) {
  return topology == Topology::kRing ? "ring" : "full";
}

std::string_view to_string(XbRelease release) {
  return release == XbRelease::kOnAck ? "on_ack" : "on_transmit";
}

std::string_view to_string(XbTransmit transmit) {
  return transmit == XbTransmit::kSerial ? "serial" : "parallel";
}

namespace {

/// ceil(log2(n)) for n >= 1: the depth of a binary sync tree over n members.
std::uint32_t tree_depth(std::uint64_t n) {
  std::uint32_t depth = 0;
  while ((std::uint64_t{1} << depth) < n) {
    ++depth;
  }
  return depth;
}

} // namespace

Cycles Fabric::barrier_cycles(std::uint64_t tiles_on_a_chip, std::uint32_t chips) const {
  if (chips > 1) {
    // Two chips pay cross_chip_cycles; every doubling beyond adds a level to the sync tree.
    return sync.cross_chip_cycles +
           sync.cross_chip_cycles_per_doubling * (tree_depth(chips) - 1);
  }
  const std::uint32_t full = tree_depth(chip.tiles);
  const std::uint32_t group = tree_depth(std::max<std::uint64_t>(1, tiles_on_a_chip));
  const Cycles saved = sync.on_chip_cycles_per_doubling * (full > group ? full - group : 0);
  return saved < sync.on_chip_cycles ? sync.on_chip_cycles - saved : 0;
}

GridPosition Fabric::position(std::uint32_t chip_tile) const {
  const std::uint32_t height = chip.tiles_per_column;
  const std::uint32_t column = chip_tile / height;
  const std::uint32_t along = chip_tile % height;
  // Serpentine: odd columns run upwards, so tile ids that follow each other are grid neighbours.
  return {column, column % 2 == 0 ? along : height - 1 - along};
}

std::uint32_t Fabric::hops(std::uint32_t chip_tile_a, std::uint32_t chip_tile_b) const {
  const GridPosition a = position(chip_tile_a);
  const GridPosition b = position(chip_tile_b);
  const auto distance = [](std::uint32_t x, std::uint32_t y) {
    return x > y ? x - y : y - x;
  };
  return distance(a.column, b.column) + distance(a.row, b.row);
}

Cycles Fabric::on_chip_latency(std::uint32_t chip_tile_a, std::uint32_t chip_tile_b) const {
  return exchange.latency_base_cycles +
         static_cast<Cycles>(exchange.latency_cycles_per_hop) * hops(chip_tile_a, chip_tile_b);
}

Cycles Fabric::on_chip_transfer_cycles(std::uint64_t bytes) const {
  return (bytes + exchange.send_bytes_per_cycle - 1) / exchange.send_bytes_per_cycle;
}

std::uint32_t Fabric::packets_in_flight_after_xoff() const {
  // After the XB decides XOFF at time t, packets still reach it if the tile finished emitting
  // them after t - c (c = control latency) - they were on the way - or started them before the
  // XOFF reached the tile at t + c. That window is 2c plus one full packet long; the tile emits
  // at most one packet per minimal packet time in it.
  const Cycles c = xb.control_latency_cycles;
  const Cycles bw = exchange.send_bytes_per_cycle;
  const Cycles shortest = std::max<Cycles>(1, (external.header_bytes + 1 + bw - 1) / bw);
  const Cycles longest =
      (static_cast<Cycles>(external.header_bytes) + external.max_payload_bytes + bw - 1) / bw;
  const Cycles window = 2 * c + longest;
  // Every tile holding an XON may emit that many.
  const Cycles per_tile = (window + shortest - 1) / shortest + 1;
  return static_cast<std::uint32_t>(
      std::min<Cycles>(per_tile * std::max<std::uint32_t>(1, xb.concurrent_grants), 0xffffffffu));
}

std::uint32_t Fabric::xoff_threshold() const {
  const std::uint32_t in_flight = packets_in_flight_after_xoff();
  return xb.queue_packets > in_flight ? xb.queue_packets - in_flight : 0;
}

} // namespace s2p::sim
