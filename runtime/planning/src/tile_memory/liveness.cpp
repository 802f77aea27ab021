// Liveness of tile variables: live ranges from the superstep program, then per tile the
// segments, equivalence classes and class-interference table the allocator works with (see
// <seq2par/planning/tile_memory.h>).
#include <seq2par/planning/tile_memory.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace s2p::rt {

const char* to_string(variable_kind kind) {
  switch (kind) {
  case variable_kind::owned_block:
    return "owned-block";
  case variable_kind::received_block:
    return "received-block";
  case variable_kind::send_buffer:
    return "send-buffer";
  case variable_kind::receive_buffer:
    return "receive-buffer";
  case variable_kind::pool:
    return "pool";
  case variable_kind::shared_copy:
    return "shared-copy";
  case variable_kind::code:
    return "code";
  }
  return "?";
}

namespace {

constexpr std::uint32_t kNever = std::numeric_limits<std::uint32_t>::max();

struct access_summary {
  std::uint32_t first_write = kNever;
  std::uint32_t first_read = kNever;
  std::uint32_t last = 0;
  bool accessed = false;
};

} // namespace

std::vector<std::optional<live_range>> live_ranges(std::size_t variables,
                                                   std::span<const superstep_access> accesses,
                                                   std::uint32_t supersteps,
                                                   std::span<const std::size_t> live_out) {
  std::vector<access_summary> seen(variables);
  for (const superstep_access& a : accesses) {
    access_summary& s = seen.at(a.variable);
    s.accessed = true;
    s.last = std::max(s.last, a.superstep);
    std::uint32_t& first = a.kind == access_kind::write ? s.first_write : s.first_read;
    first = std::min(first, a.superstep);
  }
  const std::uint32_t end = supersteps == 0 ? 0 : supersteps - 1;
  for (const std::size_t v : live_out) {
    seen.at(v).accessed = true;
    seen[v].last = std::max(seen[v].last, end);
  }
  std::vector<std::optional<live_range>> ranges(variables);
  for (std::size_t v = 0; v < variables; ++v) {
    const access_summary& s = seen[v];
    if (!s.accessed)
      continue;
    // Read strictly before its first write (or never written): the data comes from outside the
    // program, so it is held from the start. A read in the superstep of the first write reads
    // what that superstep wrote (compute reads its own results; exchange fills buffers that the
    // next compute phase reads).
    const bool input = s.first_read < s.first_write;
    ranges[v] = live_range{input ? 0U : s.first_write, s.last};
  }
  return ranges;
}

namespace {

// Segment boundaries: every first superstep and every superstep after a last one. Between two
// boundaries no variable starts or ends, so the live set is constant.
std::vector<std::uint32_t> segment_starts(std::span<const live_range> ranges) {
  std::vector<std::uint32_t> starts;
  starts.reserve(ranges.size() * 2);
  for (const live_range& r : ranges) {
    starts.push_back(r.first);
    if (r.last != std::numeric_limits<std::uint32_t>::max()) // live to the end: nothing after
      starts.push_back(r.last + 1);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  // The boundary after the latest last superstep only closes the last segment (a range that
  // runs to the end of time has no such boundary).
  std::uint32_t latest = 0;
  for (const live_range& r : ranges)
    latest = std::max(latest, r.last);
  if (!starts.empty() && starts.back() > latest)
    starts.pop_back();
  return starts;
}

std::uint32_t segment_index(const std::vector<std::uint32_t>& starts, std::uint32_t superstep) {
  const auto it = std::upper_bound(starts.begin(), starts.end(), superstep);
  return static_cast<std::uint32_t>(it - starts.begin()) - 1;
}

// Classes: variables sorted by their segment span; each distinct span is one class.
void build_classes(tile_liveness& liveness, std::span<const std::uint64_t> bytes) {
  const std::size_t n = liveness.segment_of.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](std::size_t v) {
    return std::pair{liveness.segment_of[v].first, liveness.segment_of[v].last};
  };
  // Ties by index (std::stable_sort's temporary buffer is deprecated in this libstdc++).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key(a) != key(b) ? key(a) < key(b) : a < b;
  });
  liveness.class_of.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t v = order[i];
    if (i == 0 || key(order[i - 1]) != key(v))
      liveness.classes.push_back({liveness.segment_of[v], {}, 0});
    tile_liveness::variable_class& c = liveness.classes.back();
    c.members.push_back(v);
    c.total_bytes += bytes[v];
    liveness.class_of[v] = liveness.classes.size() - 1;
  }
}

// The class-interference table: two classes interfere when their spans share a segment. Classes
// are sorted by first segment, so the scan for class a stops at the first class starting after
// a's last segment.
void build_table(tile_liveness& liveness) {
  const std::size_t k = liveness.classes.size();
  liveness.words_per_row = (k + 63) / 64;
  liveness.table.assign(k * liveness.words_per_row, 0);
  for (std::size_t a = 0; a < k; ++a) {
    const auto span_a = liveness.classes[a].segments;
    for (std::size_t b = a; b < k; ++b) {
      const auto span_b = liveness.classes[b].segments;
      if (span_b.first > span_a.last)
        break;
      if (span_b.last < span_a.first)
        continue;
      liveness.table[a * liveness.words_per_row + b / 64] |= std::uint64_t{1} << (b % 64);
      liveness.table[b * liveness.words_per_row + a / 64] |= std::uint64_t{1} << (a % 64);
    }
  }
}

} // namespace

tile_liveness analyse_tile(std::span<const live_range> ranges,
                           std::span<const std::uint64_t> bytes) {
  tile_liveness liveness;
  liveness.segment_start = segment_starts(ranges);
  liveness.segment_of.reserve(ranges.size());
  for (const live_range& r : ranges) {
    liveness.segment_of.push_back({segment_index(liveness.segment_start, r.first),
                                   segment_index(liveness.segment_start, r.last)});
  }
  build_classes(liveness, bytes);
  build_table(liveness);
  return liveness;
}

} // namespace s2p::rt
