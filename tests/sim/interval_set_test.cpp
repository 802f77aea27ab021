// The produced-bytes bookkeeping (sim/engine/tile_memory.h): IntervalSet answers the common
// case, a region inside the first range, inline; everything else goes to the general search.
// Both must give what the set of merged ranges says.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/tile_memory.h"

namespace s2p::sim::detail {
namespace {

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

TEST(IntervalSet, ContainsOnlyRegionsInsideOneRange) {
  IntervalSet set;
  EXPECT_FALSE(set.contains(0, 1));
  EXPECT_TRUE(set.contains(3, 3)); // an empty region is always produced
  set.add(0, 10);
  set.add(20, 30);
  EXPECT_TRUE(set.contains(0, 10));
  EXPECT_TRUE(set.contains(2, 8));
  EXPECT_FALSE(set.contains(5, 11)); // starts in the first range, ends past it
  EXPECT_FALSE(set.contains(5, 25)); // spans the gap
  EXPECT_FALSE(set.contains(10, 11));
  EXPECT_TRUE(set.contains(20, 30));
  EXPECT_TRUE(set.contains(25, 26));
  EXPECT_FALSE(set.contains(25, 31));
  EXPECT_FALSE(set.contains(30, 40));
}

TEST(IntervalSet, AddsInsideTheFirstRangeChangeNothingAndOthersMerge) {
  IntervalSet set;
  set.add(10, 20);
  set.add(12, 18); // inside the first range
  EXPECT_EQ(set.ranges(), (Ranges{{10, 20}}));
  set.add(15, 25); // starts inside the first range, ends past it: grows it
  EXPECT_EQ(set.ranges(), (Ranges{{10, 25}}));
  set.add(0, 5); // before it
  EXPECT_EQ(set.ranges(), (Ranges{{0, 5}, {10, 25}}));
  set.add(3, 4); // inside the (new) first range
  EXPECT_EQ(set.ranges(), (Ranges{{0, 5}, {10, 25}}));
  set.add(5, 10); // touching both: one range
  EXPECT_EQ(set.ranges(), (Ranges{{0, 25}}));
  set.add(30, 30); // empty
  EXPECT_EQ(set.ranges(), (Ranges{{0, 25}}));
}

} // namespace
} // namespace s2p::sim::detail
