// The tuning loop's decisions (tuning/tune_loop.h) with a fake measurement instead of a build
// and a simulator run: convergence, rollback and blocking, the best round, the stop conditions,
// reuse of a plan measured before.
#include "tuning/tune_loop.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace s2p::tuning {
namespace {

// A fake fabric: `work` cycles of compute dealt by the map's weights over equally fast tiles,
// plus 100 cycles of exchange each; the kernel takes as long as its busiest tile (+ sync).
Measurement weighted_run(const KernelPlan& plan, long long work) {
  const MapPlan& map = plan.maps.at(0);
  std::vector<double> w = map.weights.empty()
                              ? std::vector<double>(static_cast<std::size_t>(map.tiles), 1.0)
                              : map.weights;
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<long long> compute, exchange;
  for (const double x : w) {
    compute.push_back(static_cast<long long>(static_cast<double>(work) * x / sum));
    exchange.push_back(100);
  }
  Measurement m;
  m.feedback = test::feedback_of(test::sim_report(compute, exchange));
  m.cycles = m.feedback.total_cycles;
  return m;
}

struct CountingMeasure {
  int calls = 0;
  std::function<Measurement(const KernelPlan&)> run;
  Measure measure() {
    return [this](const KernelPlan& plan, int) -> std::optional<Measurement> {
      ++calls;
      return run(plan);
    };
  }
};

TEST(TuneLoop, DefaultRulesFixALopsidedMapAndStopWhenNoRuleFires) {
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 9000);
                       }};
  std::vector<int> seen;
  const TuneResult result =
      tune(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), fake.measure(), {},
           [&](const TuneRound& r) { seen.push_back(r.round); });
  // Round 1 moves most of the work; round 2 the last few percent (the exchange's share of the
  // busy cycles does not scale with the weights); then the busiest tile is within 5 % of the mean.
  ASSERT_EQ(result.rounds.size(), 3u) << tune_table(result);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(result.stop, TuneStop::NoRuleFired);
  EXPECT_EQ(result.best, 2);
  EXPECT_EQ(result.rounds[2].from, 1);
  const TuneRound& tuned = result.rounds[1];
  EXPECT_EQ(tuned.from, 0);
  EXPECT_FALSE(tuned.rolled_back);
  ASSERT_EQ(tuned.trace.fired.size(), 1u);
  EXPECT_EQ(tuned.trace.fired[0].rule, "rebalance-busy-tiles");
  EXPECT_LE(tuned.measured.cycles, 0.5 * result.rounds[0].measured.cycles);
  // The measured change of the firing: cycles and the map's busiest tile, before and after.
  ASSERT_EQ(tuned.changes.size(), 1u);
  EXPECT_EQ(tuned.changes[0].cycles_before, result.rounds[0].measured.cycles);
  EXPECT_EQ(tuned.changes[0].cycles_after, tuned.measured.cycles);
  ASSERT_TRUE(tuned.changes[0].max_busy.has_value());
  EXPECT_EQ(tuned.changes[0].max_busy->first, 6100);
  EXPECT_EQ(fake.calls, 3);
  const std::string text = explain(result);
  EXPECT_NE(text.find("measured for 'rebalance-busy-tiles': cycles"), std::string::npos) << text;
  EXPECT_NE(text.find("final evaluation:\nno rule fired"), std::string::npos) << text;
}

// A variant that computes something else than the sequential program (a round whose
// measurement says so) is rolled back however fast it ran, never becomes the best round, and
// its rule is not fired again on that plan.
TEST(TuneLoop, ARoundThatComputesSomethingElseIsRolledBack) {
  KernelPlan start = test::one_map_plan(4, {});
  start.variant_groups = {{"dot", "dot_wrong"}};
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         Measurement m = weighted_run(p, 9000);
                         if (chosen_variant(p, "dot") == "dot_wrong") {
                           m.wrong_result = "round 1: the tuned program prints something else";
                           m.cycles = 1; // fast, and wrong
                         }
                         return m;
                       }};
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "next", "when": "plan.variants_left > 0", "action": {"kind": "substitute", "op": "dot"}}]})");
  const TuneResult result = tune(start, rules, fake.measure());
  ASSERT_EQ(result.rounds.size(), 2u) << tune_table(result);
  EXPECT_TRUE(result.rounds[1].rolled_back);
  EXPECT_EQ(result.rounds[1].trace.fired[0].change, "'dot' runs as variant 'dot_wrong' (was 'dot')");
  EXPECT_EQ(result.best, 0);
  EXPECT_EQ(result.stop, TuneStop::NoRuleFired);
  EXPECT_EQ(fake.calls, 2);
  EXPECT_NE(explain(result).find("rolled back: round 1: the tuned program prints something else"),
            std::string::npos)
      << explain(result);
  EXPECT_NE(to_json(result)["rounds"][1].dump().find("wrong_result"), std::string::npos);
  EXPECT_NE(tune_table(result).find("(rolled back: wrong result)"), std::string::npos) << tune_table(result);
}

// A rule whose plans run slower is rolled back and not fired again on the same plan; a rule its
// change kept from firing then gets its chance.
TEST(TuneLoop, ASlowerPlanIsRolledBackAndItsRuleBlockedOnThatPlan) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "bad", "priority": 9, "for_each": "map", "when": "max(map.weights) > 1",
     "action": {"kind": "rebalance", "weights": "map.weights * map.busy"}},
    {"name": "good", "priority": 1, "for_each": "map", "when": "max(map.weights) > 2 and max(map.weights) < 10",
     "action": {"kind": "rebalance", "weights": "map.weights * 0 + 1"}}]})");
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 9000);
                       }};
  const TuneResult result = tune(test::one_map_plan(4, {6, 1, 1, 1}), rules, fake.measure());
  ASSERT_EQ(result.rounds.size(), 3u) << tune_table(result);
  EXPECT_TRUE(result.rounds[1].rolled_back);
  EXPECT_EQ(result.rounds[1].trace.fired.at(0).rule, "bad");
  EXPECT_EQ(result.rounds[2].from, 0); // the rolled-back plan is not built on
  EXPECT_EQ(result.rounds[2].blocked, (std::vector<std::string>{"bad"}));
  EXPECT_EQ(result.rounds[2].trace.fired.at(0).rule, "good");
  EXPECT_FALSE(result.rounds[2].rolled_back);
  EXPECT_EQ(result.best, 2);
  EXPECT_EQ(result.stop, TuneStop::NoRuleFired);
  EXPECT_NE(tune_table(result).find("(rolled back)"), std::string::npos);
}

// A failed tile: the map is repartitioned over the other three tiles. That plan is slower than
// the one that still computed on the failed tile (a third more work per tile), but it is never
// rolled back, and a plan on a failed tile is never the best, whatever its cycles.
TEST(TuneLoop, LeavingAFailedTileIsNeverRolledBackAndNeverLosesToIt) {
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         const MapPlan& map = p.maps.at(0);
                         std::vector<long long> compute(4, 0), exchange(4, 100);
                         for (int t = 0; t < map.tiles; ++t)
                           compute[static_cast<std::size_t>(fabric_tile(map, t))] = 9000 / map.tiles;
                         Measurement m;
                         m.feedback = test::feedback_of(test::sim_report(compute, exchange));
                         m.feedback.failed_tiles = {2};
                         m.cycles = m.feedback.total_cycles;
                         return m;
                       }};
  const TuneResult result = tune(test::one_map_plan(4, {}), default_rules(), fake.measure());
  ASSERT_GE(result.rounds.size(), 2u) << tune_table(result);
  const TuneRound& repartitioned = result.rounds[1];
  EXPECT_EQ(repartitioned.trace.fired.at(0).rule, "repartition-failed-tiles");
  EXPECT_GT(repartitioned.measured.cycles, 1.2 * result.rounds[0].measured.cycles);
  EXPECT_FALSE(repartitioned.rolled_back);
  EXPECT_EQ(repartitioned.plan.maps[0].usable_tiles, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(result.best, 1);
  EXPECT_TRUE(uses_failed_tiles(result.rounds[0].plan, {2}));
  EXPECT_FALSE(uses_failed_tiles(repartitioned.plan, {2}));
}

// Rolled back above 1 % slower, kept at or below it.
TEST(TuneLoop, TheRollbackThresholdIsOnePercent) {
  for (const auto& [slowdown, rolled_back] : {std::pair{1.005, false}, std::pair{1.02, true}}) {
    const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
      {"name": "once", "when": "not var.done", "action": {"kind": "set_variable", "variable": "var.done", "value": "1"}}]})");
    const double factor = slowdown;
    CountingMeasure fake{0, [factor](const KernelPlan& p) {
                           Measurement m = weighted_run(p, 4000);
                           if (p.variables.contains("done"))
                             m.cycles *= factor;
                           return m;
                         }};
    const TuneResult result = tune(test::one_map_plan(4, {}), rules, fake.measure());
    ASSERT_GE(result.rounds.size(), 2u);
    EXPECT_EQ(result.rounds[1].rolled_back, rolled_back) << slowdown;
    EXPECT_EQ(result.best, 0) << slowdown; // never faster: round 0 stays the best
  }
}

// A rule that fires without changing the plan ends the loop: there is nothing new to measure.
TEST(TuneLoop, StopsWhenTheRulesChangeNothing) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "same", "for_each": "map", "when": "1", "action": {"kind": "rebalance", "weights": "map.weights"}}]})");
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 4000);
                       }};
  const TuneResult result = tune(test::one_map_plan(4, {2, 1, 1, 1}), rules, fake.measure());
  EXPECT_EQ(result.stop, TuneStop::NoChange);
  EXPECT_EQ(result.rounds.size(), 1u);
  EXPECT_EQ(result.last_trace.fired.size(), 1u);
}

// Rules that keep firing stop at the round limit; a tie keeps the earliest round as the best.
TEST(TuneLoop, StopsAtTheRoundLimit) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "count", "when": "1", "action": {"kind": "set_variable", "variable": "var.n", "value": "var.n + 1"}}]})");
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 4000);
                       }};
  TuneOptions options;
  options.rounds = 3;
  options.min_gain = 0; // the rounds change only a variable: no gain to expect
  const TuneResult result = tune(test::one_map_plan(4, {}), rules, fake.measure(), options);
  EXPECT_EQ(result.stop, TuneStop::RoundLimit);
  EXPECT_EQ(result.rounds.size(), 4u);
  EXPECT_EQ(result.best, 0);
  EXPECT_EQ(result.rounds[3].plan.variables.at("n"), 3);
}

// Two rules that make the same slower plan (the second only fires where the first has not): the
// second's round reuses the first's measurement.
TEST(TuneLoop, APlanMeasuredBeforeIsNotMeasuredAgain) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "a", "priority": 2, "for_each": "map", "when": "1", "action": {"kind": "rebalance", "weights": "map.weights * map.busy"}},
    {"name": "b", "priority": 1, "for_each": "map", "when": "max(map.weights) < 10", "action": {"kind": "rebalance", "weights": "map.weights * map.busy"}}]})");
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 9000);
                       }};
  const TuneResult result = tune(test::one_map_plan(4, {6, 1, 1, 1}), rules, fake.measure());
  ASSERT_EQ(result.rounds.size(), 3u) << tune_table(result);
  EXPECT_EQ(result.rounds[2].reused_from, 1);
  EXPECT_TRUE(result.rounds[2].rolled_back);
  EXPECT_EQ(fake.calls, 2);
  EXPECT_EQ(result.stop, TuneStop::NoRuleFired);
}

// A map of 4 equal blocks on 3 tiles: one tile always owns 2 blocks, whatever the weights, so
// the rebalance rule's predicate stays true and each round re-deals the weights without
// changing the cycles (owner_copy's scaled_sum did this on the simulator up to the round
// limit). A round that gains less than the minimum blocks its rules on its plan: the loop stops.
Measurement quantized_run(const KernelPlan& plan) {
  const MapPlan& map = plan.maps.at(0);
  const std::size_t tiles = static_cast<std::size_t>(map.tiles);
  std::vector<double> w = map.weights.empty() ? std::vector<double>(tiles, 1.0) : map.weights;
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<long long> blocks(tiles, 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  long long dealt = 0;
  for (std::size_t t = 0; t < tiles; ++t) { // largest remainder: integral blocks per tile
    const double share = 4 * w[t] / sum;
    blocks[t] = static_cast<long long>(share);
    dealt += blocks[t];
    remainders.emplace_back(-(share - static_cast<double>(blocks[t])), t);
  }
  std::sort(remainders.begin(), remainders.end());
  for (std::size_t i = 0; dealt < 4; ++i, ++dealt)
    ++blocks[remainders[i].second];
  std::vector<long long> compute, exchange;
  for (const long long b : blocks) {
    compute.push_back(1000 * b + 1);
    exchange.push_back(100);
  }
  Measurement m;
  m.feedback = test::feedback_of(test::sim_report(compute, exchange));
  m.cycles = m.feedback.total_cycles;
  return m;
}

TEST(TuneLoop, ARoundBelowTheMinimumGainStopsTheRuleThatMadeIt) {
  CountingMeasure fake{0, quantized_run};
  const TuneResult result =
      tune(test::one_map_plan(3, {1, 1, 1}), default_rules(), fake.measure());
  ASSERT_EQ(result.rounds.size(), 2u) << tune_table(result);
  EXPECT_EQ(result.stop, TuneStop::NoGain) << tune_table(result);
  EXPECT_EQ(result.rounds[1].trace.fired.at(0).rule, "rebalance-busy-tiles");
  EXPECT_TRUE(result.rounds[1].low_gain);
  EXPECT_FALSE(result.rounds[1].rolled_back);
  EXPECT_EQ(fake.calls, 2);
  EXPECT_NE(tune_table(result).find("below the minimum gain"), std::string::npos);
  EXPECT_NE(explain(result).find("gained less than the minimum gain"), std::string::npos);
  // Without the minimum (0: an equal round is no loss) the rule fires up to the round limit.
  TuneOptions options;
  options.min_gain = 0;
  EXPECT_EQ(tune(test::one_map_plan(3, {1, 1, 1}), default_rules(), fake.measure(), options).stop,
            TuneStop::RoundLimit);
}

TEST(TuneLoop, AFailedMeasurementStopsTheLoop) {
  int calls = 0;
  const Measure fails_second = [&](const KernelPlan& p, int round) -> std::optional<Measurement> {
    ++calls;
    if (round == 1)
      return std::nullopt;
    return weighted_run(p, 9000);
  };
  const TuneResult result =
      tune(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), fails_second);
  EXPECT_EQ(result.stop, TuneStop::MeasureFailed);
  EXPECT_EQ(result.rounds.size(), 1u);
  const Measure fails_first = [](const KernelPlan&, int) -> std::optional<Measurement> {
    return std::nullopt;
  };
  EXPECT_TRUE(tune(test::one_map_plan(4, {}), default_rules(), fails_first).rounds.empty());
}

TEST(TuneLoop, TheRecordHasEveryRoundAndTheBest) {
  CountingMeasure fake{0, [](const KernelPlan& p) {
                         return weighted_run(p, 9000);
                       }};
  const TuneResult result =
      tune(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), fake.measure());
  const auto json = to_json(result);
  ASSERT_EQ(json["rounds"].size(), 3u);
  EXPECT_EQ(json["rounds"][0]["round"], 0);
  EXPECT_EQ(json["rounds"][0]["fired"].size(), 0u);
  EXPECT_EQ(json["rounds"][1]["fired"][0]["rule"], "rebalance-busy-tiles");
  EXPECT_TRUE(json["rounds"][1]["fired"][0].contains("predicted"));
  EXPECT_TRUE(json["rounds"][1]["fired"][0].contains("measured"));
  EXPECT_EQ(json["rounds"][1]["plan"]["format"], "seq2par.plan/1");
  EXPECT_EQ(json["best"], 2);
  // The same inputs give the same record, byte for byte.
  EXPECT_EQ(
      json.dump(),
      to_json(tune(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), fake.measure())).dump());
}

} // namespace
} // namespace s2p::tuning
