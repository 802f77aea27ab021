// How the mpi backend deals a launch's tiles to ranks (runtime/src/tile/mpi/tile_dealing.h).
#include "tile/mpi/tile_dealing.h"

#include <gtest/gtest.h>

#include <vector>

using s2p::rt::mpi::tile_dealing;

namespace {

std::vector<int> one_chip(int tiles) {
  return std::vector<int>(static_cast<std::size_t>(tiles), 0);
}

std::vector<int> chips_of(int tiles, int per_chip) {
  std::vector<int> chips;
  for (int t = 0; t < tiles; ++t)
    chips.push_back(t / per_chip);
  return chips;
}

// Every tile has exactly one owner, runs are contiguous, and owner() agrees with them.
void expect_partition(const tile_dealing& deal, int tiles) {
  EXPECT_EQ(deal.first(0), 0);
  EXPECT_EQ(deal.end(deal.ranks() - 1), tiles);
  for (int r = 0; r < deal.ranks(); ++r) {
    EXPECT_LE(deal.first(r), deal.end(r));
    if (r > 0) {
      EXPECT_EQ(deal.first(r), deal.end(r - 1));
    }
    for (int t = deal.first(r); t < deal.end(r); ++t)
      EXPECT_EQ(deal.owner(t), r) << "tile " << t;
  }
}

} // namespace

TEST(TileDealing, SplitsOneChipIntoEqualRuns) {
  const tile_dealing deal(one_chip(4), 2);
  expect_partition(deal, 4);
  EXPECT_EQ(deal.end(0), 2);
  const tile_dealing three(one_chip(64), 3);
  expect_partition(three, 64);
  EXPECT_EQ(three.end(0), 21);
  EXPECT_EQ(three.end(1), 42);
}

TEST(TileDealing, DealsWholeChipsWhenThereAreEnough) {
  // 12 tiles on 6 two-tile chips, 4 ranks: chips 0 | 1-2 | 3 | 4-5 (r * 6 / 4).
  const tile_dealing deal(chips_of(12, 2), 4);
  expect_partition(deal, 12);
  EXPECT_EQ(deal.first(1), 2);
  EXPECT_EQ(deal.first(2), 6);
  EXPECT_EQ(deal.first(3), 8);
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(deal.first(r) % 2, 0) << "rank " << r << " starts inside a chip";
}

TEST(TileDealing, ExtraRanksGetNoTiles) {
  const tile_dealing deal(one_chip(3), 5);
  expect_partition(deal, 3);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(deal.end(r) - deal.first(r), 1);
  EXPECT_EQ(deal.first(3), deal.end(3));
  EXPECT_EQ(deal.first(4), deal.end(4));
}

TEST(TileDealing, OneRankRunsEverything) {
  const tile_dealing deal(chips_of(10, 3), 1);
  expect_partition(deal, 10);
}

TEST(TileDealing, RefusesAJobWithoutRanks) {
  EXPECT_THROW(tile_dealing(one_chip(2), 0), std::invalid_argument);
}
