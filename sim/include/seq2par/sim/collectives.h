// Generators of ring collectives as schedule templates.
//
// Reduce-scatter over N tiles splits each tile's vector into N fragments and takes N-1 steps: in
// step s tile i sends fragment (i - s + c) mod N to (i + 1) mod N, which combines it into its own
// copy. Afterwards fragment k is complete on tile (k + owner_offset) mod N, c = -owner_offset - 1.
// With the default owner_offset -1 (Figs. 3/4: R complete on n5) c is 0 and the steps are exactly
// the seed's table. All-gather takes N-1 more steps, each tile passing on the fragment it
// completed last. All-reduce is both. A bidirectional ring sends the first half of every fragment
// forward (ring "a", links LF) and the second half backward (ring "b", links LB).
//
// The output is one template for all tiles (the `repeat` over steps keeps its size independent
// of N), with collective metadata that lets reports compare it with the ring bound and lets
// `run --verify` check the result.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "seq2par/sim/fabric.h"
#include "seq2par/sim/schedule.h"

namespace s2p::sim {

struct RingOptions {
  std::string kind = "allreduce"; ///< "allreduce", "reduce-scatter" or "all-gather"
  std::uint32_t tiles = 0;        ///< N, over all chips
  std::uint64_t bytes = 0;        ///< S, per tile
  std::uint32_t chips = 1;        ///< tiles are split evenly, tile i on chip i / (N / chips)
  bool bidirectional = false;
  ElementType type = ElementType::kF32;
  CombineOp op = CombineOp::kSum;
  std::int64_t owner_offset = -1;
  std::string kernel; ///< default: "ring-<kind>"
};

/// The schedule (`seq2par.schedule/1` JSON). The fabric gives on-chip latencies, used only to
/// place the backward half of a bidirectional ring after the forward half at every receive port.
/// Throws std::invalid_argument, naming the option, for impossible options.
[[nodiscard]] nlohmann::ordered_json make_ring_schedule(const RingOptions& options,
                                                        const Fabric& fabric);

/// Fragment k of N over `elements` elements: [k*E/N, (k+1)*E/N), in elements.
[[nodiscard]] constexpr std::uint64_t fragment_begin(std::uint64_t k, std::uint64_t elements,
                                                     std::uint64_t n) {
  return k * elements / n;
}

} // namespace s2p::sim
