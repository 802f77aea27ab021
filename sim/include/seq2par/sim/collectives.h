// Generators of ring collectives as schedule templates.
//
// Reduce-scatter over N tiles splits each tile's vector into N fragments and takes N-1 steps: in
// step s tile i sends fragment (i - s + c) mod N to (i + 1) mod N, which combines it into its own
// copy. Afterwards fragment k is complete on tile (k + owner_offset) mod N, c = -owner_offset - 1.
// With the default owner_offset -1 (the reference ring: R complete on n5) c is 0 and the steps are
// exactly the reference ring's table. All-gather takes N-1 more steps, each tile passing on the fragment it
// completed last. All-reduce is both. A bidirectional ring sends the first half of every fragment
// forward (ring "a", links LF) and the second half backward (ring "b", links LB).
//
// A hierarchical collective (chips >= 2, P tiles per chip, C chips) runs rings per level: a
// reduce-scatter over each chip's P tiles (all chips at once, each in its own sync group, so a
// step pays the on-chip barrier), then one over the C tiles with the same index on every chip
// (a ring across chips), and for an all-gather the same levels in reverse. Chip fragment j of P is
// the union of the global fragments jC .. jC+C-1 of N = CP (exactly: jC*E/N = j*E/P), so after
// both reduce-scatter levels global fragment k = jC + i is complete on chip (i - 1) mod C, tile
// (j - 1) mod P of that chip (`fragment_owner`). `bidirectional` applies to the ring across
// chips (halves over links LF and LB); within a chip the ring runs one way. That is not the
// flat ring's order of combining, so the runtime's collectives - which promise the flat ring's
// results bit for bit - choose kHierarchical only where no order can show
// (s2p::rt::collective_algorithm); `s2p-sim gen` chooses for its user (`automatic_algorithm`).
//
// The output is one template for all tiles (the `repeat` over steps keeps its size independent
// of N), with collective metadata that lets reports compare it with the ring bound and lets
// `run --verify` check the result.
#pragma once

#include <cstdint>
#include <optional>
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
  /// kRing: one ring over all tiles, combining in the order the runtime's collectives promise.
  /// kHierarchical: rings within chips, then across chips (chips >= 2, owner_offset -1 only).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  /// Where the fragments lie after the reduce-scatter (and before the all-gather): the
  /// algorithm's own (nullopt), or, for a one-way hierarchical all-gather or reduce-scatter, the
  /// flat ring's: fragment k on tile (k - 1) mod N, as the runtime's collectives mean it. The
  /// ring across chips then moves (or folds) each tile's own fragment, and the ring within each
  /// chip passes on (or folds) C fragments per tile, one send each, back to back (spaced by the
  /// longest fragment's cycles at the fabric's send rate).
  std::optional<FragmentPlacement> placement;
};

/// The placement `options` give their fragments (their own or the algorithm's).
[[nodiscard]] FragmentPlacement placement_of(const RingOptions& options);
/// The placement a schedule's collective gives its fragments.
[[nodiscard]] FragmentPlacement placement_of(const CollectiveInfo& info);

/// What `s2p-sim gen` uses when no algorithm is named: hierarchical as soon as tiles span chips.
[[nodiscard]] constexpr CollectiveAlgorithm automatic_algorithm(std::uint32_t chips) {
  return chips > 1 ? CollectiveAlgorithm::kHierarchical : CollectiveAlgorithm::kRing;
}

/// The tile on which fragment k of `tiles` is complete after the reduce-scatter of `info` (and
/// which holds it before an all-gather): (k + owner_offset) mod N for a ring (and a hierarchical
/// all-gather with the ring's placement); for a hierarchical collective, with k = jC + i, tile
/// (j - 1) mod P of chip (i - 1) mod C.
[[nodiscard]] TileId fragment_owner(const CollectiveInfo& info, std::uint32_t tiles,
                                    std::uint32_t tiles_per_chip, std::uint64_t k);

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
