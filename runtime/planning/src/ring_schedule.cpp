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
  // An all-gather only copies: from the flat ring's placement, any order gives its result. A
  // reduce-scatter's result is its owned fragments only when nothing reads its partials.
  const bool owned_only = launch.kind == collective_kind::all_reduce ||
                          (launch.kind == collective_kind::reduce_scatter &&
                           launch.partials == ring_partials::overwritten);
  const bool order_free =
      launch.kind == collective_kind::all_gather || (owned_only && exact_combine);
  return chips > 1 && order_free ? sim::CollectiveAlgorithm::kHierarchical
                                 : sim::CollectiveAlgorithm::kRing;
}

std::string ring_out_of_memory_message(const ring_launch& launch, const memory_layout& layout) {
  if (layout.out_of_memory.empty())
    return layout.refusal ? layout.refusal->message : std::string();
  // Every tile holds the same buffers: the first tile's verdict stands for all of them.
  return std::string("a ring ") + schedule_name(launch.kind) + " of " +
         memory_size_text(launch.bytes_per_tile) + " per tile on " +
         std::to_string(launch.tiles) + " tiles: " + layout.out_of_memory.front().message +
         "; every buffer of the ring scales with the row: rows of fewer elements (the data "
         "spread over more tiles, or the collective split into parts) fit";
}

nlohmann::ordered_json ring_schedule(const ring_launch& launch, sim::Fabric& fabric,
                                     const std::string& fabric_file, std::string* out_of_memory) {
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
  // An all-gather's input lies as the flat ring leaves it, and a reduce-scatter's fragments end
  // there (an all-reduce keeps its own placement: its result is every row whole).
  if (launch.kind != collective_kind::all_reduce &&
      ring.algorithm == sim::CollectiveAlgorithm::kHierarchical)
    ring.placement = sim::FragmentPlacement::kRing;
  auto json = sim::make_ring_schedule(ring, fabric);
  json["generator"] = std::string("seq2par: ") + schedule_name(launch.kind) + ' ' +
                      std::string(sim::to_string(ring.algorithm)) + " (s2p-sim gen), " +
                      std::to_string(launch.bytes_per_tile) + " bytes per tile";
  // Compile-time addresses from the tile memory allocator, which the simulator checks. Tile
  // memory is the fabric's: tiles never grow to fit the rows (as foralls' never do).
  const memory_layout layout = assign_buffer_addresses(json, fabric);
  if (out_of_memory && !layout.ok())
    *out_of_memory = ring_out_of_memory_message(launch, layout);
  return json;
}

} // namespace s2p::rt
