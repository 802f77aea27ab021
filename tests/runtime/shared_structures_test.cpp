// Shared read-only structures on master tiles: the share-or-replicate decision, masters,
// multicast periods, and the allocated layout (the planning library alone, no Clang).
#include <seq2par/planning/shared_structures.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

namespace rt = s2p::rt;

namespace {

constexpr std::uint64_t kSram = 624 * 1024;

// `tiles` tiles, `phases` compute phases, `data` bytes of other data on every tile and phase.
rt::shared_structure_problem problem(std::uint32_t tiles, std::uint32_t phases,
                                     std::uint64_t data) {
  rt::shared_structure_problem p;
  p.tiles = tiles;
  p.phases = phases;
  p.params = {kSram, 16 * 1024, false};
  p.data_bytes.assign(phases, std::vector<std::uint64_t>(tiles, data));
  return p;
}

const rt::shared_structure_plan& plan_of(const rt::shared_structures_result& r,
                                         const std::string& name) {
  return *std::find_if(r.structures.begin(), r.structures.end(),
                       [&](const auto& s) { return s.name == name; });
}

void expect_valid(const rt::shared_structures_result& r) {
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(rt::layout_errors(r.memory, r.layout), std::vector<std::string>{});
}

} // namespace

// The shared-structure flow (two structures, one receiver space): receivers get structure #1, run two compute sets, get structure #2, run
// two more. Tiles 10 and 11 hold less data (room for masters).
TEST(SharedStructures, Fig14FlowSharesBothStructuresAndReusesTheReceiversSpace) {
  auto p = problem(12, 4, 40000);
  p.data_bytes[0][10] = p.data_bytes[1][10] = p.data_bytes[2][10] = p.data_bytes[3][10] = 10000;
  p.data_bytes[0][11] = p.data_bytes[1][11] = p.data_bytes[2][11] = p.data_bytes[3][11] = 10000;
  p.structures = {{"structure #1", 20000, {0, 1}}, {"structure #2", 20000, {2, 3}}};
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  const auto& one = plan_of(r, "structure #1");
  const auto& two = plan_of(r, "structure #2");
  ASSERT_EQ(one.decision, rt::share_decision::shared) << one.reason;
  ASSERT_EQ(two.decision, rt::share_decision::shared) << two.reason;
  EXPECT_EQ(r.masters, (std::vector<std::uint32_t>{10, 11}));
  EXPECT_NE(one.master, two.master);
  // One multicast each, before the first compute set that reads it; received copies live
  // from that exchange to the last compute set that reads them.
  ASSERT_EQ(one.periods.size(), 1U);
  ASSERT_EQ(two.periods.size(), 1U);
  EXPECT_EQ(one.periods[0].live, (rt::live_range{0, 3}));
  EXPECT_EQ(two.periods[0].live, (rt::live_range{4, 7}));
  // Replicated, every tile holds data + both structures; sharing: a receiver holds one at a time.
  EXPECT_EQ(r.replicated_peak_bytes, 80000U);
  EXPECT_LT(r.peak_bytes, r.replicated_peak_bytes);
  EXPECT_LE(r.tile_peak_bytes[0], 40000U + 20000 + 2 * p.exchange_code_bytes);
  // The allocator reuses the receivers' space: a receiver's layout ends below what holding
  // both structures at once would need.
  EXPECT_LT(r.layout.usage[0].end, 40000U + 20000 + 20000);
}

TEST(SharedStructures, ThreeTablesInThreePhasesAreSharedOnEqualTiles) {
  auto p = problem(12, 3, 40000);
  p.structures = {{"a", 20000, {0}}, {"b", 20000, {1}}, {"c", 20000, {2}}};
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  for (const auto& s : r.structures)
    EXPECT_EQ(s.decision, rt::share_decision::shared) << s.name << ": " << s.reason;
  EXPECT_EQ(r.masters.size(), 3U);
  EXPECT_EQ(r.replicated_peak_bytes, 100000U);
  // A master holds its own table and receives the table of the phase (80 KB + code).
  EXPECT_LT(r.peak_bytes, 81000U);
}

TEST(SharedStructures, OneTableReadInEveryPhaseOnEqualTilesStaysReplicated) {
  auto p = problem(12, 2, 40000);
  p.structures = {{"table", 20000, {0, 1}}};
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  EXPECT_EQ(r.structures[0].decision, rt::share_decision::replicated);
  EXPECT_EQ(r.peak_bytes, r.replicated_peak_bytes);
  EXPECT_TRUE(r.masters.empty());
}

TEST(SharedStructures, AStructureSmallerThanItsExchangeCodeIsReplicated) {
  auto p = problem(12, 3, 40000);
  p.structures = {{"a", 20000, {0}}, {"b", 20000, {1}}, {"c", 20000, {2}}, {"tiny", 48, {0}}};
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  const auto& tiny = plan_of(r, "tiny");
  EXPECT_EQ(tiny.decision, rt::share_decision::replicated);
  EXPECT_NE(tiny.reason.find("smaller than its exchange code"), std::string::npos) << tiny.reason;
  EXPECT_EQ(plan_of(r, "a").decision, rt::share_decision::shared);
}

TEST(SharedStructures, MastersAreFewerThanAThirdOfTheTiles) {
  EXPECT_EQ(rt::master_limit(3, 3), 0U);
  EXPECT_EQ(rt::master_limit(4, 3), 1U);
  EXPECT_EQ(rt::master_limit(7, 3), 2U);
  EXPECT_EQ(rt::master_limit(1472, 3), 3U);
  auto p = problem(7, 5, 40000);
  for (std::uint32_t k = 0; k < 5; ++k)
    p.structures.push_back({'t' + std::to_string(k), 20000, {k}});
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  EXPECT_LE(r.masters.size(), 2U);
  EXPECT_LT(r.masters.size() * 3, 7U);
  // Three tiles cannot have a master at all.
  auto q = problem(3, 3, 40000);
  q.structures = {{"a", 20000, {0}}, {"b", 20000, {1}}, {"c", 20000, {2}}};
  const auto none = rt::plan_shared_structures(q);
  for (const auto& s : none.structures)
    EXPECT_EQ(s.decision, rt::share_decision::replicated);
}

TEST(SharedStructures, ReadsAfterAGapAreMulticastAgain) {
  auto p = problem(12, 4, 40000);
  p.structures = {{"a", 20000, {0, 3}}, {"b", 20000, {1}}, {"c", 20000, {2}}};
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  const auto& a = plan_of(r, "a");
  ASSERT_EQ(a.decision, rt::share_decision::shared) << a.reason;
  ASSERT_EQ(a.periods.size(), 2U);
  EXPECT_EQ(a.periods[0].live, (rt::live_range{0, 1}));
  EXPECT_EQ(a.periods[1].live, (rt::live_range{6, 7}));
}

TEST(SharedStructures, ForcedReplicationSharesNothing) {
  auto p = problem(12, 3, 40000);
  p.structures = {{"a", 20000, {0}}, {"b", 20000, {1}}, {"c", 20000, {2}}};
  p.force_replicate = true;
  const auto r = rt::plan_shared_structures(p);
  expect_valid(r);
  for (const auto& s : r.structures)
    EXPECT_EQ(s.decision, rt::share_decision::replicated);
  EXPECT_EQ(r.peak_bytes, r.replicated_peak_bytes);
}

TEST(SharedStructures, APhaseOutOfRangeIsAMisuse) {
  auto p = problem(12, 2, 0);
  p.structures = {{"a", 20000, {2}}};
  EXPECT_THROW(rt::plan_shared_structures(p), std::invalid_argument);
  p.structures = {{"a", 20000, {}}};
  EXPECT_THROW(rt::plan_shared_structures(p), std::invalid_argument);
}

// Random kernels: sharing never raises the chip's peak, masters stay fewer than a third, and
// every layout is valid (receivers' copies of a period at one address).
TEST(SharedStructures, RandomKernelsNeverPeakAboveReplication) {
  std::mt19937 random(14);
  for (int trial = 0; trial < 60; ++trial) {
    const auto tiles = static_cast<std::uint32_t>(random() % 20 + 1);
    const auto phases = static_cast<std::uint32_t>(random() % 5 + 1);
    auto p = problem(tiles, phases, 0);
    for (auto& row : p.data_bytes)
      for (auto& bytes : row)
        bytes = random() % 60000;
    const int structures = static_cast<int>(random() % 5);
    for (int s = 0; s < structures; ++s) {
      rt::shared_structure_use use{'s' + std::to_string(s), random() % 30000 + 1, {}};
      for (std::uint32_t ph = 0; ph < phases; ++ph)
        if (random() % 2 || use.phases.empty())
          use.phases.push_back(ph);
      p.structures.push_back(use);
    }
    const auto r = rt::plan_shared_structures(p);
    expect_valid(r);
    EXPECT_LE(r.peak_bytes, r.replicated_peak_bytes) << "trial " << trial;
    EXPECT_LT(r.masters.size() * 3, std::max<std::size_t>(tiles, 1)) << "trial " << trial;
    for (const auto& s : r.structures) {
      if (s.decision == rt::share_decision::shared) {
        EXPECT_LT(r.peak_bytes, r.replicated_peak_bytes) << "trial " << trial;
      }
    }
  }
}
