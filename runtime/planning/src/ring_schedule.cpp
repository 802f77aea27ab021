// A collective launch as the simulator's ring schedule (see <seq2par/planning/ring_schedule.h>).
#include <seq2par/planning/ring_schedule.h>

#include <seq2par/planning/buffer_addresses.h>
#include <seq2par/planning/placement.h>
#include <seq2par/sim/collectives.h>

#include <stdexcept>
#include <string>

namespace s2p::rt {

const char* schedule_name(collective_kind kind) {
  switch (kind) {
  case collective_kind::all_reduce:
    return "allreduce";
  case collective_kind::reduce_scatter:
    return "reduce-scatter";
  case collective_kind::all_gather:
    return "all-gather";
  }
  return "allreduce";
}

sim::CollectiveAlgorithm collective_algorithm(const ring_launch& launch, std::uint32_t chips) {
  const bool exact_combine = !sim::is_floating(launch.element_type);
  // An all-gather only copies: from the flat ring's placement, any order gives its result.
  const bool order_free = launch.kind == collective_kind::all_gather ||
                          (launch.kind == collective_kind::all_reduce && exact_combine);
  return chips > 1 && order_free ? sim::CollectiveAlgorithm::kHierarchical
                                 : sim::CollectiveAlgorithm::kRing;
}

nlohmann::ordered_json ring_schedule(const ring_launch& launch, sim::Fabric& fabric,
                                     const std::string& fabric_file) {
  sim::RingOptions ring;
  ring.kind = schedule_name(launch.kind);
  ring.tiles = launch.tiles;
  ring.bytes = launch.bytes_per_tile;
  ring.type = launch.element_type;
  if (launch.kind != collective_kind::all_gather)
    ring.op = launch.op;
  ring.kernel = launch.kernel;
  ring.chips = chips_for(fabric, ring.tiles, true);
  if (ring.chips > fabric.chips) {
    if (!fabric_file.empty())
      throw std::runtime_error("seq2par: kernel '" + launch.kernel + "': a ring over " +
                               std::to_string(ring.tiles) + " tiles needs " +
                               std::to_string(ring.chips) +
                               " chips with equal tile counts; the fabric in " + fabric_file +
                               " has " + std::to_string(fabric.chips));
    fabric.chips = ring.chips;
  }
  ring.algorithm = collective_algorithm(launch, ring.chips);
  if (launch.kind == collective_kind::all_gather) // its input lies as the flat ring leaves it
    ring.placement = sim::FragmentPlacement::kRing;
  auto json = sim::make_ring_schedule(ring, fabric);
  json["generator"] = std::string("seq2par: ") + schedule_name(launch.kind) + ' ' +
                      std::string(sim::to_string(ring.algorithm)) + " (s2p-sim gen), " +
                      std::to_string(launch.bytes_per_tile) + " bytes per tile";
  if (fabric_file.empty() && ring.bytes > fabric.tile.sram_bytes) {
    json["fabric"]["tile_sram_bytes"] = ring.bytes; // as s2p-sim gen does
    fabric.tile.sram_bytes = ring.bytes;
  }
  // Compile-time addresses from the tile memory allocator, which the simulator checks.
  assign_buffer_addresses(json, fabric);
  return json;
}

} // namespace s2p::rt
