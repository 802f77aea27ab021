// A map from int64 positions to values, stored as segments [start, next start). The
// dependency passes keep "who last wrote / who holds" each pool unit in one of these, so
// their cost grows with the number of accesses, not with pool size.
#pragma once

#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

namespace s2p::ir {

template <class Value> class IntervalMap {
public:
  explicit IntervalMap(Value initial = Value{}) {
    segments_.emplace(std::numeric_limits<std::int64_t>::min(), std::move(initial));
  }

  // Calls fn(lo, hi, value&) for each segment of [lo, hi), splitting segments at lo and hi.
  template <class Fn> void for_each(std::int64_t lo, std::int64_t hi, Fn&& fn) {
    if (lo >= hi)
      return;
    auto it = split(lo);
    const auto end = split(hi);
    for (; it != end; ++it) {
      const auto next = std::next(it);
      const std::int64_t seg_hi =
          next == segments_.end() ? std::numeric_limits<std::int64_t>::max() : next->first;
      fn(it->first, seg_hi, it->second);
    }
  }

  // Sets [lo, hi) to one segment holding `value`.
  void assign(std::int64_t lo, std::int64_t hi, Value value) {
    if (lo >= hi)
      return;
    auto first = split(lo);
    const auto last = split(hi);
    segments_.erase(first, last);
    segments_.emplace(lo, std::move(value));
  }

  std::size_t segment_count() const { return segments_.size(); }

private:
  using Map = std::map<std::int64_t, Value>;
  // Ensures a segment starts exactly at `at` and returns it.
  typename Map::iterator split(std::int64_t at) {
    auto it = std::prev(segments_.upper_bound(at));
    if (it->first == at)
      return it;
    return segments_.emplace_hint(std::next(it), at, it->second);
  }

  Map segments_;
};

} // namespace s2p::ir
