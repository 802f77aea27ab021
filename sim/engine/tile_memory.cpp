#include "engine/tile_memory.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace s2p::sim::detail {

bool IntervalSet::contains_slow(std::uint64_t lo, std::uint64_t hi) const {
  if (lo >= hi) {
    return true;
  }
  // The last range starting at or before lo is the only one that can cover [lo, hi).
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), lo,
                             [](std::uint64_t v, const auto& r) { return v < r.first; });
  if (it == ranges_.begin()) {
    return false;
  }
  --it;
  return it->second >= hi;
}

void IntervalSet::add_slow(std::uint64_t lo, std::uint64_t hi) {
  if (lo >= hi) {
    return;
  }
  // Merge with every range that overlaps or touches [lo, hi). Most additions (a receive into
  // bytes the initial data already produced) fall inside one range and change nothing: the
  // range that could hold them is found and the vector left as it is.
  auto first = std::lower_bound(ranges_.begin(), ranges_.end(), lo,
                                [](const auto& r, std::uint64_t v) { return r.second < v; });
  if (first != ranges_.end() && first->first <= lo && first->second >= hi) {
    return;
  }
  auto last = first;
  while (last != ranges_.end() && last->first <= hi) {
    lo = std::min(lo, last->first);
    hi = std::max(hi, last->second);
    ++last;
  }
  first = ranges_.erase(first, last);
  ranges_.insert(first, {lo, hi});
}

namespace {

std::string kib(std::uint64_t bytes) {
  return std::to_string(bytes) + " bytes";
}

} // namespace

TileMemory::TileMemory(const Resolver& resolver, const Fabric& fabric, bool with_data,
                       std::uint64_t max_host_bytes, Diagnostics& diagnostics,
                       std::vector<TileStats>& tile_stats, std::vector<MemoryOverTime>& over_time,
                       std::span<const TileRange> shares, unsigned rank)
    : resolver_(resolver), buffer_count_(resolver.schedule().buffers.size()),
      with_data_(with_data),
      owned_(shares.empty() ? TileRange{0, resolver.schedule().tiles} : shares[rank]) {
  const Schedule& schedule = resolver.schedule();
  produced_.resize(static_cast<std::size_t>(schedule.tiles) * buffer_count_);
  for (TileId t = 0; t < schedule.tiles; ++t) {
    for (std::size_t b = 0; b < buffer_count_; ++b) {
      const TileBuffer& held = resolver.buffer(t, static_cast<int>(b));
      if (held.held && schedule.buffers[b].init != BufferInit::kNone) {
        produced_[index(t, static_cast<int>(b))].add_all(held.bytes);
      }
    }
    check_fit(t, fabric, diagnostics, over_time[t], tile_stats[t]);
  }
  if (with_data_) {
    allocate(max_host_bytes, shares, rank);
  }
}

namespace {

// A buffer a tile holds, over the supersteps it is live in.
struct LiveBuffer {
  int buffer;
  std::uint64_t first;
  std::uint64_t last;
  std::uint64_t bytes;
  std::int64_t base;
};

std::vector<LiveBuffer> live_buffers(const Resolver& resolver, TileId tile, std::size_t buffers) {
  std::vector<LiveBuffer> live;
  for (std::size_t b = 0; b < buffers; ++b) {
    const TileBuffer& held = resolver.buffer(tile, static_cast<int>(b));
    if (held.held) {
      const auto [first, last] = resolver.live_range(static_cast<int>(b));
      live.push_back({static_cast<int>(b), first, last, held.bytes, held.base});
    }
  }
  return live;
}

// Sweeps the supersteps where the live set changes (+bytes at first, -bytes after last): the
// memory over time and the peaks, in total and by category.
void sweep_live_bytes(const Schedule& schedule, const std::vector<LiveBuffer>& live,
                      MemoryOverTime& over_time, TileStats& stats) {
  std::map<std::uint64_t, std::vector<std::pair<int, std::int64_t>>> changes;
  for (const LiveBuffer& l : live) {
    changes[l.first].emplace_back(l.buffer, static_cast<std::int64_t>(l.bytes));
    changes[l.last + 1].emplace_back(l.buffer, -static_cast<std::int64_t>(l.bytes));
  }
  std::array<std::int64_t, kMemoryCategories> by_category{};
  std::int64_t total = 0;
  for (const auto& [superstep, deltas] : changes) {
    for (const auto& [buffer, delta] : deltas) {
      by_category[static_cast<std::size_t>(schedule.buffers[buffer].category)] += delta;
      total += delta;
    }
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      stats.peak_by_category[c] =
          std::max(stats.peak_by_category[c], static_cast<std::uint64_t>(by_category[c]));
    }
    if (over_time.empty() || over_time.back().second != static_cast<std::uint64_t>(total)) {
      over_time.emplace_back(static_cast<std::uint32_t>(superstep),
                             static_cast<std::uint64_t>(total));
    }
    if (static_cast<std::uint64_t>(total) > stats.peak_memory) {
      stats.peak_memory = static_cast<std::uint64_t>(total);
      stats.peak_superstep = static_cast<std::uint32_t>(superstep);
      for (std::size_t c = 0; c < kMemoryCategories; ++c) {
        stats.memory_at_peak[c] = static_cast<std::uint64_t>(by_category[c]);
      }
    }
  }
}

// The out-of-memory diagnostic: the live set at the peak, biggest first, so the report says
// what to move.
Diagnostic out_of_memory(const Resolver& resolver, TileId tile, const std::vector<LiveBuffer>& live,
                         const TileStats& stats, std::uint64_t sram) {
  const Schedule& schedule = resolver.schedule();
  std::vector<const LiveBuffer*> at_peak;
  for (const LiveBuffer& l : live) {
    if (l.first <= stats.peak_superstep && stats.peak_superstep <= l.last) {
      at_peak.push_back(&l);
    }
  }
  std::sort(at_peak.begin(), at_peak.end(), [](const LiveBuffer* a, const LiveBuffer* b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->buffer < b->buffer;
  });
  std::string biggest;
  for (std::size_t i = 0; i < at_peak.size() && i < 3; ++i) {
    biggest += (i == 0 ? "" : ", ") + std::string("'") +
               schedule.buffers[at_peak[i]->buffer].name + "' " + kib(at_peak[i]->bytes);
  }
  return resolver.diagnostic(
      "out-of-memory", stats.peak_superstep, tile, schedule.buffers[at_peak.front()->buffer].name,
      "out of memory: " + kib(stats.peak_memory) + " live at the peak, the tile has " + kib(sram) +
          " of SRAM (biggest: " + biggest + ")");
}

// Two placed buffers live at the same time: overlapping, or sharing a bank where the fabric
// separates banks.
void check_placed_pair(const Resolver& resolver, const Fabric& fabric, TileId tile,
                       const LiveBuffer& a, const LiveBuffer& b, Diagnostics& diagnostics) {
  if (a.bytes == 0 || b.bytes == 0 || a.last < b.first || b.last < a.first) {
    return;
  }
  const Schedule& schedule = resolver.schedule();
  const std::uint64_t bank = fabric.tile.bank_bytes;
  const auto a_lo = static_cast<std::uint64_t>(a.base);
  const auto b_lo = static_cast<std::uint64_t>(b.base);
  const std::uint64_t a_hi = a_lo + a.bytes;
  const std::uint64_t b_hi = b_lo + b.bytes;
  const std::uint64_t when = std::max(a.first, b.first);
  const std::string names = "buffers '" + schedule.buffers[a.buffer].name + "' [" +
                            std::to_string(a_lo) + ", " + std::to_string(a_hi) + ") and '" +
                            schedule.buffers[b.buffer].name + "' [" + std::to_string(b_lo) + ", " +
                            std::to_string(b_hi) + ")";
  if (a_lo < b_hi && b_lo < a_hi) {
    diagnostics.add(resolver.diagnostic("buffers-overlap", when, tile,
                                        schedule.buffers[b.buffer].name,
                                        names + " overlap while both are live"));
  } else if (fabric.tile.separate_banks && a_lo / bank <= (b_hi - 1) / bank &&
             b_lo / bank <= (a_hi - 1) / bank) {
    diagnostics.add(resolver.diagnostic("bank-shared", when, tile, schedule.buffers[b.buffer].name,
                                        names + " share a " + kib(bank) +
                                            " bank while both are live"));
  }
}

// Explicit addresses: inside SRAM, no overlap between buffers live at the same time, and no
// shared bank when the fabric separates banks.
void check_placements(const Resolver& resolver, const Fabric& fabric, TileId tile,
                      const std::vector<LiveBuffer>& live, Diagnostics& diagnostics) {
  const Schedule& schedule = resolver.schedule();
  const std::uint64_t sram = fabric.tile.sram_bytes;
  std::vector<const LiveBuffer*> placed;
  for (const LiveBuffer& l : live) {
    if (l.base < 0) {
      continue;
    }
    const auto base = static_cast<std::uint64_t>(l.base);
    if (base > sram || l.bytes > sram - base) {
      diagnostics.add(
          resolver.diagnostic("out-of-memory", l.first, tile, schedule.buffers[l.buffer].name,
                              "buffer '" + schedule.buffers[l.buffer].name + "' at [" +
                                  std::to_string(base) + ", " + std::to_string(base + l.bytes) +
                                  ") extends past the tile's " + kib(sram) + " of SRAM"));
    }
    placed.push_back(&l);
  }
  for (std::size_t i = 0; i < placed.size(); ++i) {
    for (std::size_t j = i + 1; j < placed.size(); ++j) {
      check_placed_pair(resolver, fabric, tile, *placed[i], *placed[j], diagnostics);
    }
  }
}

} // namespace

void TileMemory::check_fit(TileId tile, const Fabric& fabric, Diagnostics& diagnostics,
                           MemoryOverTime& over_time, TileStats& stats) const {
  const std::vector<LiveBuffer> live = live_buffers(resolver_, tile, buffer_count_);
  if (live.empty()) {
    return;
  }
  sweep_live_bytes(resolver_.schedule(), live, over_time, stats);
  if (stats.peak_memory > fabric.tile.sram_bytes) {
    diagnostics.add(out_of_memory(resolver_, tile, live, stats, fabric.tile.sram_bytes));
  }
  check_placements(resolver_, fabric, tile, live, diagnostics);
}

void TileMemory::Release::operator()(std::byte* bytes) const {
  std::free(bytes); // NOLINT(cppcoreguidelines-no-malloc): from std::aligned_alloc
}

void TileMemory::allocate(std::uint64_t max_host_bytes, std::span<const TileRange> shares,
                          unsigned rank) {
  const Schedule& schedule = resolver_.schedule();
  offset_.assign(static_cast<std::size_t>(schedule.tiles) * buffer_count_, 0);
  // Every rank checks every rank's share, so that all of them refuse together (or none does).
  const TileRange whole{0, schedule.tiles};
  const std::span<const TileRange> ranges = shares.empty() ? std::span(&whole, 1) : shares;
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    std::uint64_t share = 0;
    const bool mine = shares.empty() || r == rank;
    for (TileId t = ranges[r].begin; t < ranges[r].end; ++t) {
      for (std::size_t b = 0; b < buffer_count_; ++b) {
        const TileBuffer& held = resolver_.buffer(t, static_cast<int>(b));
        if (!held.held || !holds_contents(schedule.buffers[b].category)) {
          continue;
        }
        if (mine) {
          offset_[index(t, static_cast<int>(b))] = share;
        }
        share += (held.bytes + 63) / 64 * 64; // keep every buffer cache-line aligned
        if (share > max_host_bytes) {
          throw InputError(schedule.source + ": moving real data needs more than " +
                           std::to_string(max_host_bytes) + " bytes of host memory for buffer contents" +
                           (ranges.size() > 1 ? " on rank " + std::to_string(r) : std::string()) +
                           "; run timing-only (--timing-only) or raise --max-host-memory");
        }
      }
    }
    total = mine ? share : total;
  }
  // Large contents sit on huge pages: a ring step touches every tile's fragment, spread over
  // gigabytes, so with 4 KiB pages nearly every transfer misses the TLB and the first touch of
  // each page faults (the fill and the first steps of a 6 GiB run were dominated by that).
  constexpr std::uint64_t kPage = 4096;
  constexpr std::uint64_t kHugePage = std::uint64_t{2} << 20;
  const std::uint64_t alignment = total >= 4 * kHugePage ? kHugePage : kPage;
  const std::uint64_t size = (total + alignment - 1) / alignment * alignment;
  if (size == 0) {
    return;
  }
  storage_.reset(static_cast<std::byte*>(std::aligned_alloc(alignment, size)));
  if (!storage_) {
    throw std::bad_alloc();
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (alignment == kHugePage) {
    (void)madvise(storage_.get(), size, MADV_HUGEPAGE); // advice only: without it, small pages
  }
#endif
}

} // namespace s2p::sim::detail
