// Tile memory: what each tile holds, whether it fits, which bytes have been produced, and (when
// data is moved) the bytes themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/fabric.h"
#include "seq2par/sim/ranks.h"
#include "seq2par/sim/report.h"
#include "seq2par/sim/resolve.h"

namespace s2p::sim::detail {

/// Disjoint, sorted, merged half-open byte ranges.
class IntervalSet {
public:
  /// Whether [lo, hi) lies inside one range. Inline for the common case, a buffer produced
  /// whole (one range): every send and receive of every superstep asks.
  [[nodiscard]] bool contains(std::uint64_t lo, std::uint64_t hi) const {
    return in_first(lo, hi) || contains_slow(lo, hi);
  }
  void add(std::uint64_t lo, std::uint64_t hi) {
    if (!in_first(lo, hi)) { // inside the first range: nothing changes
      add_slow(lo, hi);
    }
  }
  void add_all(std::uint64_t size) { add(0, size); }
  /// The ranges themselves (the distributed engine ships them between ranks).
  [[nodiscard]] const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges() const {
    return ranges_;
  }
  [[nodiscard]] std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges() { return ranges_; }

private:
  [[nodiscard]] bool in_first(std::uint64_t lo, std::uint64_t hi) const {
    return !ranges_.empty() && ranges_.front().first <= lo && hi <= ranges_.front().second;
  }
  [[nodiscard]] bool contains_slow(std::uint64_t lo, std::uint64_t hi) const;
  void add_slow(std::uint64_t lo, std::uint64_t hi);

  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;
};

class TileMemory {
public:
  /// Checks that every tile's buffers fit its SRAM (peak of live buffers; explicit addresses
  /// inside SRAM and not overlapping while live; banks when the fabric asks) and records the
  /// peaks in `tile_stats`. Allocates host storage when `with_data`, for the tiles of
  /// `owned` only (a distributed run: the other ranks hold the rest; `shares` are every rank's
  /// tiles); throws InputError when any rank's share would exceed `max_host_bytes`, on every
  /// rank alike.
  TileMemory(const Resolver& resolver, const Fabric& fabric, bool with_data,
             std::uint64_t max_host_bytes, Diagnostics& diagnostics,
             std::vector<TileStats>& tile_stats, std::vector<MemoryOverTime>& over_time,
             std::span<const TileRange> shares = {}, unsigned rank = 0);

  [[nodiscard]] bool has_data() const { return with_data_; }
  /// The bytes of a buffer on a tile; empty in timing-only mode, when the tile does not hold
  /// it (and for code buffers, which have no contents) or when another rank owns the tile.
  /// Inline: moving data asks for both sides of every transfer, several times.
  [[nodiscard]] std::span<std::byte> bytes(TileId tile, int buffer) {
    if (!with_data_) {
      return {};
    }
    const TileBuffer& held = resolver_.buffer(tile, buffer);
    if (!held.held || !holds_contents(resolver_.schedule().buffers[buffer].category) ||
        !owned_.contains(tile)) {
      return {};
    }
    return {storage_.get() + offset_[index(tile, buffer)], held.bytes};
  }
  [[nodiscard]] std::span<const std::byte> bytes(TileId tile, int buffer) const {
    return const_cast<TileMemory*>(this)->bytes(tile, buffer);
  }

  /// The tiles whose contents this process holds (all of them unless distributed).
  [[nodiscard]] TileRange owned() const { return owned_; }

  [[nodiscard]] bool produced(TileId tile, int buffer, std::uint64_t lo, std::uint64_t hi) const {
    return produced_[index(tile, buffer)].contains(lo, hi);
  }
  void mark_produced(TileId tile, int buffer, std::uint64_t lo, std::uint64_t hi) {
    produced_[index(tile, buffer)].add(lo, hi);
  }
  [[nodiscard]] const IntervalSet& produced_set(TileId tile, int buffer) const {
    return produced_[index(tile, buffer)];
  }
  [[nodiscard]] IntervalSet& produced_set(TileId tile, int buffer) {
    return produced_[index(tile, buffer)];
  }

private:
  [[nodiscard]] std::size_t index(TileId tile, int buffer) const {
    return static_cast<std::size_t>(tile) * buffer_count_ + static_cast<std::size_t>(buffer);
  }
  void check_fit(TileId tile, const Fabric& fabric, Diagnostics& diagnostics,
                 MemoryOverTime& over_time, TileStats& stats) const;
  void allocate(std::uint64_t max_host_bytes, std::span<const TileRange> shares, unsigned rank);

  const Resolver& resolver_;
  std::size_t buffer_count_;
  bool with_data_;
  TileRange owned_;
  std::vector<IntervalSet> produced_;
  struct Release {
    void operator()(std::byte* bytes) const;
  };
  /// Every tile's buffers in one page-aligned allocation (first touched by the threads that
  /// fill the initial data, so the page faults are shared out too).
  std::unique_ptr<std::byte[], Release> storage_;
  std::vector<std::uint64_t> offset_; ///< of each (tile, buffer) in storage_
};

} // namespace s2p::sim::detail
