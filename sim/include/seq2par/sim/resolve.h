// Resolution of a schedule template into concrete per-tile lists ("patching" the tile index into
// the one image). Used by the engine for every superstep, by `s2p-sim resolve` for one
// tile, and by tests that compare generated collectives with the reference ring tables.
//
// Everything checkable from one tile's values alone is checked here and reported with superstep,
// tile and entry: buffer held and live, offsets and sizes in bounds and aligned to the element,
// peers in range and in the sync group. Checks that need several tiles (matching sends with
// receives) or timing (ports, produced data) belong to the exchange stage.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/schedule.h"

namespace s2p::sim {

/// A buffer as one tile holds it.
struct TileBuffer {
  bool held = false;
  std::uint64_t bytes = 0;
  std::int64_t base = -1; ///< -1: no explicit address (laid out by the simulator)
};

struct ResolvedRegion {
  int buffer = -1;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

struct ResolvedCompute {
  std::uint32_t entry = 0; ///< index into SuperstepTemplate::compute
  TileId tile = 0;
  Cycles cycles = 0;
  std::uint32_t first_region = 0; ///< reads then writes, in ResolvedSuperstep::regions
  std::uint32_t read_count = 0;
  std::uint32_t write_count = 0;
};

struct ResolvedSend {
  std::uint32_t entry = 0; ///< index into SuperstepTemplate::sends
  TileId tile = 0;
  ResolvedRegion source;
  Cycles cycle = 0;
  std::uint32_t first_destination = 0; ///< in ResolvedSuperstep::destinations
  std::uint32_t destination_count = 0;
};

struct ResolvedRecv {
  std::uint32_t entry = 0; ///< index into SuperstepTemplate::receives
  TileId tile = 0;
  TileId from = 0;
  ResolvedRegion destination;
  CombineOp op = CombineOp::kCopy;
  ElementType type = ElementType::kU8;
};

/// One superstep, resolved for all tiles (or for one, see Resolver::resolve_tile).
struct ResolvedSuperstep {
  std::size_t index = 0;
  const SuperstepTemplate* step = nullptr;
  const ExpandedSuperstep* expanded = nullptr;
  std::vector<ResolvedCompute> compute;
  std::vector<ResolvedRegion> regions;
  std::vector<ResolvedSend> sends;
  std::vector<TileId> destinations;
  std::vector<ResolvedRecv> receives;

  [[nodiscard]] std::span<const TileId> destinations_of(const ResolvedSend& send) const {
    return {destinations.data() + send.first_destination, send.destination_count};
  }
};

/// The share of a superstep that one part of the sync group's tiles resolves (see
/// Resolver::resolve_part): its lists, its diagnostics, and where each entry's share ends, so
/// that the parts can be put together in the order resolve() produces.
struct ResolvedPart {
  struct EntryEnd {
    std::uint32_t compute = 0;
    std::uint32_t regions = 0;
    std::uint32_t sends = 0;
    std::uint32_t destinations = 0;
    std::uint32_t receives = 0;
    std::size_t kept = 0; ///< of `diagnostics`: kept, errors and warnings so far
    std::size_t errors = 0;
    std::size_t warnings = 0;
  };
  ResolvedSuperstep step;
  Diagnostics diagnostics;
  std::vector<EntryEnd> ends; ///< one per entry: compute entries, then sends, then receives
};

class Resolver {
public:
  /// Unrolls the program and resolves buffers and sync groups for every tile. Per-tile problems
  /// (a negative buffer size on some tile) go to `diagnostics`; malformed templates (a group
  /// expression dividing by zero) throw InputError.
  Resolver(const Schedule& schedule, Diagnostics& diagnostics, const ScheduleLimits& limits = {});

  [[nodiscard]] const Schedule& schedule() const { return schedule_; }
  [[nodiscard]] const std::vector<ExpandedSuperstep>& program() const { return program_; }
  [[nodiscard]] std::size_t superstep_count() const { return program_.size(); }

  /// Tiles of a sync group (-1 = all), ascending.
  [[nodiscard]] const std::vector<TileId>& group_tiles(int group) const;
  [[nodiscard]] bool in_group(int group, TileId tile) const;
  [[nodiscard]] const TileBuffer& buffer(TileId tile, int buffer) const {
    return buffers_[static_cast<std::size_t>(tile) * schedule_.buffers.size() + buffer];
  }
  /// Whether buffer is live in expanded superstep k (no `live` = always).
  [[nodiscard]] bool is_live(int buffer, std::size_t superstep) const;
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> live_range(int buffer) const {
    return live_[buffer];
  }

  /// Resolves every entry of expanded superstep k for every tile executing it.
  void resolve(std::size_t k, ResolvedSuperstep& out, Diagnostics& diagnostics) const;
  /// Resolves only what `tile` itself executes in superstep k.
  void resolve_tile(std::size_t k, TileId tile, ResolvedSuperstep& out,
                    Diagnostics& diagnostics) const;

  /// Resolves part `part` of `parts` of superstep k: entries over all tiles of the group (or a
  /// `where` subset of them) for the part's contiguous share of the group's tiles, entries over
  /// listed tiles (lists, ranges) whole in part 0. Different parts may run concurrently.
  void resolve_part(std::size_t k, unsigned part, unsigned parts, ResolvedPart& out,
                    std::size_t max_kept_diagnostics) const;
  /// Runs job(p) for every p < parts, possibly on several threads at once.
  using EachPart = std::function<void(unsigned parts, const std::function<void(unsigned)>& job)>;
  /// Puts the parts together entry by entry: the same lists and diagnostics, in the same order,
  /// as resolve() gives. Each part's lists go to their own slots of `out`, so `each_part` may
  /// copy the parts at once (the threads that resolved them: that memory is in their caches);
  /// without it, one after the other.
  static void merge_parts(std::span<const ResolvedPart> parts, ResolvedSuperstep& out,
                          Diagnostics& diagnostics, const EachPart& each_part = {});

  /// "superstep 3 ('name')"-style context for diagnostics about superstep k.
  [[nodiscard]] Diagnostic diagnostic(std::string kind, std::size_t k, std::optional<TileId> tile,
                                      std::string entry, std::string message) const;

private:
  class Run;

  const Schedule& schedule_;
  std::vector<ExpandedSuperstep> program_;
  std::vector<std::vector<TileId>> group_tiles_; ///< [0] = all, [g + 1] = group g
  std::vector<std::vector<char>> group_member_;
  std::vector<TileBuffer> buffers_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> live_;
};

} // namespace s2p::sim
