// Transfers of one exchange phase: each send (per destination, for multicast) matched with the
// receive its destination tile executes, and the checks that need both sides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/resolve.h"

namespace s2p::sim::detail {

struct Transfer {
  std::uint32_t send = 0; ///< index into ResolvedSuperstep::sends
  std::uint32_t recv = 0; ///< index into ResolvedSuperstep::receives
  TileId src = 0;
  TileId dst = 0;
  std::uint64_t bytes = 0;
  bool external = false; ///< between chips: headered packets through the XBs
  Cycles send_start = 0; ///< first word (or packet) leaves the sender
  Cycles send_end = 0;   ///< last word (or packet) has left the sender
  Cycles arrival_start = 0;
  Cycles arrival_end = 0; ///< last word written at the receiver
};

/// Working storage reused from one superstep to the next, so the hot path does not allocate.
struct ExchangeScratch {
  struct Key {
    std::uint64_t pair;  ///< dst << 32 | src
    std::uint64_t order; ///< tag id << 32 | leg or receive index (entry order among equals)
  };
  struct Access {
    std::uint64_t where; ///< tile << 32 | buffer
    std::uint64_t lo;
    std::uint64_t hi;
    std::uint32_t index; ///< send index (read) or transfer index (write)
    bool write;
  };
  std::vector<Key> legs;
  std::vector<Key> receives;
  std::vector<std::pair<std::uint32_t, TileId>> leg_of; ///< send, destination
  std::vector<Access> accesses;
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> order2;
  std::vector<char> flags;
  std::vector<std::uint32_t> counts;
  std::vector<Key> spare_keys;
  std::vector<Access> spare_accesses;
  std::vector<std::uint32_t> spare_order;
};

/// Matches the k-th send leg from tile a to tile b (with a tag) with the k-th receive on b from a
/// (with the same tag), in entry order. Unmatched sends and size mismatches are errors;
/// receives left waiting are returned in `unmatched_receives` (the caller reports a deadlock).
void match_transfers(const ResolvedSuperstep& step, const Resolver& resolver,
                     std::vector<Transfer>& transfers,
                     std::vector<std::uint32_t>& unmatched_receives, Diagnostics& diagnostics,
                     ExchangeScratch& scratch);

/// Within one exchange phase and one tile: a region sent must not be written by a receive
/// (read/write hazard); overlapping receives must not include a copy (write conflict) nor be a
/// float combine with an external part (order-dependent result). At least one conflict of every
/// overlapping group of regions is reported. Returns whether there was a read-write hazard (bytes
/// sent in the phase are also written in it).
bool check_hazards(const ResolvedSuperstep& step, const Resolver& resolver,
                   const std::vector<Transfer>& transfers, Diagnostics& diagnostics,
                   ExchangeScratch& scratch);

/// Sends must read only bytes produced before the phase (by the initial data, a compute phase or
/// an earlier exchange).
template <class Memory>
void check_produced(const ResolvedSuperstep& step, const Resolver& resolver, const Memory& memory,
                    Diagnostics& diagnostics) {
  for (const ResolvedSend& send : step.sends) {
    const ResolvedRegion& r = send.source;
    if (!memory.produced(send.tile, r.buffer, r.offset, r.offset + r.bytes)) {
      diagnostics.add(resolver.diagnostic(
          "not-produced", step.index, send.tile, step.step->sends[send.entry].name,
          "sends bytes [" + std::to_string(r.offset) + ", " + std::to_string(r.offset + r.bytes) +
              ") of buffer '" + resolver.schedule().buffers[r.buffer].name +
              "', which were not produced before this exchange phase"));
    }
  }
}

} // namespace s2p::sim::detail

namespace s2p::sim::detail {

/// Sorts `items` by `tile_of(item)` first - a counting sort, linear in items plus tiles - and
/// then by `less` within each tile (buckets are small: a tile sends or receives a few transfers
/// per superstep). Exchange phases move thousands of transfers; a comparison sort over all of
/// them was the simulator's hottest loop.
template <class T, class TileOf, class Less>
void sort_by_tile(std::vector<T>& items, TileOf tile_of, Less less, std::uint32_t tiles,
                  std::vector<std::uint32_t>& counts, std::vector<T>& spare) {
  const auto before = [&](const T& a, const T& b) {
    const auto ta = tile_of(a);
    const auto tb = tile_of(b);
    return ta != tb ? ta < tb : less(a, b);
  };
  if (items.size() < 64 || items.size() * 4 < tiles) {
    std::sort(items.begin(), items.end(), before);
    return;
  }
  // Lists made entry by entry over a group's tiles often come sorted already (one receive per
  // tile), or as two sorted runs (sends then receives; a ring's legs, sorted but for the one
  // into tile 0): one look at each neighbour and at most one merge cost less than moving them
  // all through the buckets, and as the buckets keep equal items in their order, and so does
  // std::merge (the first run's first), the result is the same.
  const auto run_end = std::is_sorted_until(items.begin(), items.end(), before);
  if (run_end == items.end()) {
    return;
  }
  if (std::is_sorted(run_end, items.end(), before)) {
    spare.resize(items.size());
    std::merge(items.begin(), run_end, run_end, items.end(), spare.begin(), before);
    items.swap(spare);
    return;
  }
  counts.assign(static_cast<std::size_t>(tiles) + 1, 0);
  for (const T& item : items) {
    ++counts[tile_of(item) + 1];
  }
  for (std::size_t t = 1; t < counts.size(); ++t) {
    counts[t] += counts[t - 1];
  }
  spare.resize(items.size());
  for (const T& item : items) {
    spare[counts[tile_of(item)]++] = item;
  }
  items.swap(spare);
  // counts[t] is now the end of bucket t; sort each bucket (insertion sort: they are tiny).
  std::size_t begin = 0;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    const std::size_t end = counts[t];
    for (std::size_t i = begin + 1; i < end; ++i) {
      T item = items[i];
      std::size_t j = i;
      for (; j > begin && less(item, items[j - 1]); --j) {
        items[j] = items[j - 1];
      }
      items[j] = item;
    }
    begin = end;
  }
}

} // namespace s2p::sim::detail
