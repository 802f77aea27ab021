// <seq2par/planning/ring_schedule.h> — a collective launch as the ring schedule the fabric
// simulator runs (`s2p-sim gen`'s generator), for the runtime and for seq2par's templates.
#pragma once

#include <seq2par/planning/tile_memory.h>

#include <seq2par/runtime.h>
#include <seq2par/sim/fabric.h>
#include <seq2par/sim/schedule.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace s2p::rt {

// A collective launch: the ring over `tiles` tiles, `bytes_per_tile` in each tile's row.
struct ring_launch {
  std::string kernel;
  std::uint32_t tiles = 0;
  collective_kind kind = collective_kind::all_reduce;
  sim::ElementType element_type = sim::ElementType::kF32;
  sim::CombineOp op = sim::CombineOp::kSum; // not read for an all-gather
  std::uint64_t bytes_per_tile = 0;
  ring_partials partials = ring_partials::kept; // a reduce-scatter's (see <seq2par/runtime.h>)
};

// The schedule's spelling of a collective: "allreduce", "reduce-scatter", "all-gather".
const char* schedule_name(collective_kind kind);

// How a collective launch over `chips` chips combines: the rule every backend's result rests
// on (<seq2par/collectives.h> states it as the collectives' meaning). A hierarchical collective
// (rings within chips, then across them) combines in another order than the flat ring, so it
// is chosen only where no order can show:
//  - an all-gather, of any element type: it only copies each fragment from the tile the flat
//    ring's placement puts it on (fragment k on tile (k - 1) mod N) to every tile, so the
//    hierarchical all-gather from that placement (`sim::FragmentPlacement::kRing`) gives
//    the flat ring's rows exactly;
//  - an all-reduce (every element of every row ends as the fold over all tiles) whose combine
//    is exact, i.e. an integer element type (sum and product wrap modulo 2^bits, min and max
//    pick one of their operands);
//  - a reduce-scatter with an exact combine whose partials are overwritten
//    (`ring_partials::overwritten`: the kernel's next step all-gathers the same rows), to the
//    flat ring's placement (`sim::FragmentPlacement::kRing`): each owned fragment is then the
//    fold over all tiles, on the tile the flat ring completes it on, and nothing reads the rest.
// Float sums and products round differently in another order, and float min/max differ on
// signed zeros and NaNs, so they keep the flat ring, as does a launch on one chip. A
// reduce-scatter whose partials the program may read keeps it too, whatever its type: its rows
// outside the fragment a tile owns hold the flat ring's partial sums, which are part of its
// meaning, and no hierarchical order leaves those.
sim::CollectiveAlgorithm collective_algorithm(const ring_launch& launch, std::uint32_t chips);

// The schedule of a collective launch, as `s2p-sim gen` writes it, with the algorithm
// `collective_algorithm` picks (hierarchical: per-chip sync groups, a bound per level in the
// report). The ring splits its
// tiles evenly over chips: the built-in fabric (`fabric_file` empty) gets the chips that
// needs; a fabric file without enough chips is an error (std::runtime_error). `fabric` is
// updated to what the schedule runs on. Tile memory is the fabric's, never grown: when the
// ring's buffers do not fit, the schedule's buffers have no addresses and `out_of_memory`
// (when given) receives the error, naming the tile, its peak live set and what would fit.
nlohmann::ordered_json ring_schedule(const ring_launch& launch, sim::Fabric& fabric,
                                     const std::string& fabric_file,
                                     std::string* out_of_memory = nullptr);

// The out-of-memory error of a ring whose buffers did not fit (`layout` from its addresses).
std::string ring_out_of_memory_message(const ring_launch& launch, const memory_layout& layout);

} // namespace s2p::rt
