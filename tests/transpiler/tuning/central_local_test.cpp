// Central and local plans (tuning/central_local.h): a central plan split over two chips, each
// chip's part refined by its own rules with its own feedback, and the whole plan materialized
// again.
#include "tuning/central_local.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <numeric>

namespace s2p::tuning {
namespace {

double sum_of(const std::vector<double>& xs, std::size_t first, std::size_t count) {
  return std::accumulate(xs.begin() + static_cast<std::ptrdiff_t>(first),
                         xs.begin() + static_cast<std::ptrdiff_t>(first + count), 0.0);
}

// One map on 8 tiles = 2 chips of 4, equal weights. Chip 0's tile 0 computes 4x the others
// (its input is heavier); chip 1's tile 6 has failed. With the same central plan and the same
// default rules, chip 0 rebalances and chip 1 repartitions over its 3 remaining tiles.
TEST(CentralLocal, TwoChipsEndWithDifferentLocalPlans) {
  const KernelPlan central = test::one_map_plan(8, {});
  Feedback feedback = test::feedback_of(test::sim_report({4000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
                                                         std::vector<long long>(8, 10)));
  feedback.failed_tiles = {6};
  const CentralLocalResult result =
      refine_locally(central, feedback, 4, [](int) { return default_rules(); });
  ASSERT_EQ(result.chips.size(), 2u);

  const LocalRound& chip0 = result.chips[0];
  ASSERT_EQ(chip0.local.trace.fired.size(), 1u) << explain(chip0.local.trace);
  EXPECT_EQ(chip0.local.trace.fired[0].rule, "rebalance-busy-tiles");
  const MapPlan& local0 = chip0.local.plan.maps.at(0);
  EXPECT_EQ(local0.tiles, 4);
  EXPECT_LT(local0.weights.at(0), local0.weights.at(1));

  const LocalRound& chip1 = result.chips[1];
  EXPECT_EQ(chip1.part.failed_tiles, std::vector<int>{}); // the plan did not know it yet
  ASSERT_GE(chip1.local.trace.fired.size(), 1u) << explain(chip1.local.trace);
  EXPECT_EQ(chip1.local.trace.fired[0].rule, "repartition-failed-tiles");
  const MapPlan& local1 = chip1.local.plan.maps.at(0);
  EXPECT_EQ(local1.tiles, 3);
  EXPECT_EQ(local1.usable_tiles, (std::vector<int>{0, 1, 3})); // chip-local numbering
  EXPECT_NE(chip0.local.plan, chip1.local.plan);

  // Materialized: chip 1's work stays on chip 1 (the central split: half on each chip), on
  // fabric tiles 4, 5 and 7; chip 0's half is dealt by its local weights.
  const MapPlan& merged = result.merged.maps.at(0);
  EXPECT_EQ(merged.tiles, 7);
  EXPECT_EQ(merged.usable_tiles, (std::vector<int>{0, 1, 2, 3, 4, 5, 7}));
  EXPECT_NEAR(sum_of(merged.weights, 0, 4) / sum_of(merged.weights, 4, 3), 1.0, 1e-3);
  EXPECT_EQ(result.merged.failed_tiles, std::vector<int>{6});
  // Deterministic.
  EXPECT_EQ(refine_locally(central, feedback, 4, [](int) { return default_rules(); }).merged,
            result.merged);
}

// Each chip may have its own rules: chip 1's set without the rebalance rule leaves its lopsided
// part alone while chip 0 rebalances the same shape.
TEST(CentralLocal, EachChipHasItsOwnRules) {
  const KernelPlan central = test::one_map_plan(8, {});
  const Feedback feedback = test::feedback_of(test::sim_report(
      {4000, 1000, 1000, 1000, 4000, 1000, 1000, 1000}, std::vector<long long>(8, 10)));
  const RuleSet without_rebalance = test::rules_of(R"({"format": "seq2par.rules/1", "rules": []})");
  const CentralLocalResult result = refine_locally(central, feedback, 4, [&](int chip) {
    return chip == 0 ? default_rules() : without_rebalance;
  });
  ASSERT_EQ(result.chips.size(), 2u);
  EXPECT_EQ(result.chips[0].local.trace.fired.size(), 1u);
  EXPECT_TRUE(result.chips[1].local.trace.fired.empty());
  EXPECT_EQ(result.chips[1].local.plan, result.chips[1].part);
  const std::vector<double>& w = result.merged.maps.at(0).weights;
  EXPECT_LT(w.at(0), w.at(1));
  EXPECT_EQ(w.at(4), w.at(5));
}

// A chip no map uses gets no local plan.
TEST(CentralLocal, AChipWithoutWorkHasNoPart) {
  EXPECT_FALSE(local_part(test::one_map_plan(4, {}), 1, 4).has_value());
  EXPECT_TRUE(local_part(test::one_map_plan(4, {}), 0, 4).has_value());
}

} // namespace
} // namespace s2p::tuning
