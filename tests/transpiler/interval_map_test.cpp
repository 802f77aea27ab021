#include "ir/interval_map.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace s2p::ir {
namespace {

using Segments = std::vector<std::tuple<std::int64_t, std::int64_t, int>>;

Segments collect(IntervalMap<int>& map, std::int64_t lo, std::int64_t hi) {
  Segments out;
  map.for_each(lo, hi, [&](std::int64_t a, std::int64_t b, int& v) { out.emplace_back(a, b, v); });
  return out;
}

TEST(IntervalMap, StartsWithTheInitialValueEverywhere) {
  IntervalMap<int> map(-1);
  EXPECT_EQ(collect(map, 0, 10), (Segments{{0, 10, -1}}));
}

TEST(IntervalMap, AssignSplitsNeighboursAtHalfOpenBoundaries) {
  IntervalMap<int> map(-1);
  map.assign(0, 10, 1);
  map.assign(10, 20, 2);
  map.assign(15, 30, 3);
  EXPECT_EQ(collect(map, 0, 40), (Segments{{0, 10, 1}, {10, 15, 2}, {15, 30, 3}, {30, 40, -1}}));
}

TEST(IntervalMap, ForEachCanUpdateInPlace) {
  IntervalMap<int> map(0);
  map.for_each(5, 8, [](std::int64_t, std::int64_t, int& v) { v = 7; });
  EXPECT_EQ(collect(map, 0, 10), (Segments{{0, 5, 0}, {5, 8, 7}, {8, 10, 0}}));
}

TEST(IntervalMap, EmptyRangesDoNothing) {
  IntervalMap<int> map(0);
  map.assign(5, 5, 9);
  EXPECT_TRUE(collect(map, 5, 5).empty());
  EXPECT_EQ(map.segment_count(), 1u);
}

} // namespace
} // namespace s2p::ir
