// The default rule set on synthetic feedback, feedback read from reports, and --explain.
#include "tuning/apply.h"
#include "tuning/feedback.h"
#include "tuning/round.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace s2p::tuning {
namespace {

double spread(const std::vector<double>& xs) {
  return *std::max_element(xs.begin(), xs.end()) / *std::min_element(xs.begin(), xs.end());
}

// A 6:1:1:1 weighted map on 4 equally fast tiles: tile 0 computes six times as long.
TEST(Tuning, DefaultRulesRebalanceA6111Map) {
  const KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  const Feedback feedback = test::feedback_of(test::sim_report({6000, 1000, 1000, 1000}, {300, 300, 300, 300}));
  const auto result = apply_rules(plan, default_rules(), feedback);
  ASSERT_EQ(result.trace.fired.size(), 1u) << explain(result.trace);
  const Firing& firing = result.trace.fired[0];
  EXPECT_EQ(firing.rule, "rebalance-busy-tiles");
  EXPECT_EQ(firing.target, "map 'map'");
  const auto& weights = result.plan.maps[0].weights;
  // New weight = old weight / busy: 6/6300 : 1/1300 = 1.238 : 1 (the exchange share stays).
  EXPECT_EQ(weights, (std::vector<double>{1.238, 1, 1, 1}));
  EXPECT_LT(spread(weights), 6.0 / 4);
  ASSERT_TRUE(firing.predicted.has_value());
  EXPECT_EQ(firing.predicted->before, 6300);
  EXPECT_LT(firing.predicted->after, 0.5 * firing.predicted->before);
  // A second round on the balanced run changes nothing.
  const auto again = apply_rules(result.plan, default_rules(),
                                 test::feedback_of(test::sim_report({2100, 2100, 2100, 2100}, {300, 300, 300, 300})));
  EXPECT_TRUE(again.trace.fired.empty()) << explain(again.trace);
}

TEST(Tuning, DefaultRulesLeaveABalancedMapAlone) {
  const auto result = apply_rules(test::one_map_plan(4, {}), default_rules(),
                                  test::feedback_of(test::sim_report({1000, 1050, 990, 1000}, {10, 10, 10, 10})));
  EXPECT_TRUE(result.trace.fired.empty()) << explain(result.trace);
  EXPECT_EQ(result.plan, test::one_map_plan(4, {}));
}

TEST(Tuning, DefaultRulesRepartitionAwayFromAFailedTile) {
  Feedback feedback = test::feedback_of(test::sim_report({1000, 1000, 1000, 1000}, {0, 0, 0, 0}));
  feedback.failed_tiles = {2};
  const auto result = apply_rules(test::one_map_plan(4, {2, 1, 1, 1}), default_rules(), feedback);
  ASSERT_GE(result.trace.fired.size(), 1u);
  EXPECT_EQ(result.trace.fired[0].rule, "repartition-failed-tiles");
  EXPECT_EQ(result.trace.fired[0].change, "tiles [0, 1, 2, 3] -> [0, 1, 3]");
  const MapPlan& map = result.plan.maps[0];
  EXPECT_EQ(map.tiles, 3);
  EXPECT_EQ(map.usable_tiles, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(map.weights, (std::vector<double>{2, 1, 1}));
  EXPECT_EQ(result.plan.failed_tiles, (std::vector<int>{2}));
}

TEST(Tuning, DefaultRulesDeepenARingWhenAWarpIdles) {
  KernelPlan plan = test::one_map_plan(2, {});
  plan.pools.push_back({"buf", 2, ""});
  Feedback feedback = test::feedback_of(test::sim_report({1000, 1000}, {0, 0}));
  feedback.warp_bubble = {0.05, 0.40};
  const auto result = apply_rules(plan, default_rules(), feedback);
  ASSERT_EQ(result.trace.fired.size(), 1u) << explain(result.trace);
  EXPECT_EQ(result.plan.pools[0].ring_depth, 4);
  feedback.warp_bubble = {0.05, 0.20};
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
  plan.pools[0].ring_depth = 8; // at the cap
  feedback.warp_bubble = {0.9};
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
}

TEST(Tuning, DefaultRulesFuseThreeConsecutiveForallsOnTheSameTiles) {
  using Kind = ir::TileStep::Kind;
  const Feedback feedback = test::feedback_of(test::sim_report({1000, 1000}, {0, 0}));
  KernelPlan plan = test::one_map_plan(2, {});
  plan.maps.push_back({"other", "", ir::MapProtocol::Block, false, {}, 2, {}, {}});
  plan.steps = {{Kind::AllReduce, ""}, {Kind::Forall, "map"}, {Kind::Forall, "map"}, {Kind::Forall, "map"}};
  const auto fused = apply_rules(plan, default_rules(), feedback);
  ASSERT_EQ(fused.trace.fired.size(), 1u) << explain(fused.trace);
  EXPECT_EQ(fused.plan.fusions, (std::vector<FusionDecision>{{1, 3}}));
  EXPECT_TRUE(apply_rules(fused.plan, default_rules(), feedback).trace.fired.empty()); // fused once
  plan.steps[2].map = "other"; // not on the same tiles
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
  plan.steps = {{Kind::Forall, "map"}, {Kind::Forall, "map"}, {Kind::AllGather, ""}, {Kind::Forall, "map"}};
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
  // Only runs --plan can fuse count (fuses_from, from the kernel): step 2 reads what step 0
  // writes at another index, so 0..2 does not fuse, but 1..3 does.
  plan.steps = {{Kind::Forall, "map", 0}, {Kind::Forall, "map", 0}, {Kind::Forall, "map", 1}};
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
  plan.steps.push_back({Kind::Forall, "map", 1});
  const auto later = apply_rules(plan, default_rules(), feedback);
  ASSERT_EQ(later.trace.fired.size(), 1u) << explain(later.trace);
  EXPECT_EQ(later.plan.fusions, (std::vector<FusionDecision>{{1, 3}}));
}

// A forall whose body writes several fields (max_parts 2) keeps both outputs' blocks live at
// once: when the fullest tile holds more than half its memory, the default rule splits it into
// as many foralls as it can be (once), and the trace says so; below that, nothing fires.
TEST(Tuning, DefaultRulesSplitAForallThatWritesSeveralFieldsWhenMemoryIsHigh) {
  using Kind = ir::TileStep::Kind;
  KernelPlan plan = test::one_map_plan(2, {});
  plan.steps = {{Kind::AllReduce, ""}, {Kind::Forall, "map", 1, 2}};
  Feedback feedback = test::feedback_of(test::sim_report({1000, 1000}, {0, 0}));
  feedback.sram_bytes = 1000;
  feedback.peak_memory = {400, 450};
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
  feedback.peak_memory = {400, 650};
  const auto split = apply_rules(plan, default_rules(), feedback);
  ASSERT_EQ(split.trace.fired.size(), 1u) << explain(split.trace);
  EXPECT_EQ(split.trace.fired[0].rule, "split-on-peak-memory");
  EXPECT_EQ(split.plan.splits, (std::vector<SplitDecision>{{1, 2}}));
  EXPECT_NE(explain(split.trace).find("split: split step 1 into 2 foralls"), std::string::npos)
      << explain(split.trace);
  EXPECT_TRUE(apply_rules(split.plan, default_rules(), feedback).trace.fired.empty()); // split once
  plan.steps[1].max_parts = 1; // a forall that writes one field: nothing to split
  EXPECT_TRUE(apply_rules(plan, default_rules(), feedback).trace.fired.empty());
}

// Declared variants (S2P_VARIANTS): on a compute-bound run the default rule tries the variant
// after the current choice, group by group; on an exchange-bound run, or with none left, nothing.
TEST(Tuning, DefaultRulesTryTheNextVariantWhenComputeBound) {
  KernelPlan plan = test::one_map_plan(2, {});
  plan.variant_groups = {{"dot", "dot_unrolled"}, {"axpy", "axpy_fused", "axpy_blocked"}};
  const Feedback compute_bound = test::feedback_of(test::sim_report({1000, 1000}, {10, 10}));
  const auto first = apply_rules(plan, default_rules(), compute_bound);
  ASSERT_EQ(first.trace.fired.size(), 1u) << explain(first.trace);
  EXPECT_EQ(first.trace.fired[0].rule, "try-next-variant");
  EXPECT_EQ(first.plan.variants, (std::vector<VariantChoice>{{"dot", "dot_unrolled"}}));
  const auto second = apply_rules(first.plan, default_rules(), compute_bound);
  ASSERT_EQ(second.trace.fired.size(), 1u) << explain(second.trace);
  EXPECT_EQ(second.trace.fired[0].change, "'axpy' runs as variant 'axpy_fused' (was 'axpy')");
  KernelPlan done = second.plan;
  done.variants.back().variant = "axpy_blocked";
  EXPECT_TRUE(apply_rules(done, default_rules(), compute_bound).trace.fired.empty());
  const Feedback exchange_bound = test::feedback_of(test::sim_report({10, 10}, {1000, 1000}));
  EXPECT_TRUE(apply_rules(plan, default_rules(), exchange_bound).trace.fired.empty());
}

TEST(Tuning, AlgorithmRulesAreEvaluatedWithTheDefaults) {
  const RuleSet extra = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "rebalance-busy-tiles", "priority": 50, "for_each": "map", "when": "max(map.busy) / mean(map.busy) > 5",
     "action": {"kind": "rebalance", "weights": "map.weights / map.busy"}},
    {"name": "mark-exchange-bound", "priority": 60, "when": "run.exchange_compute_ratio > 0.5",
     "action": {"kind": "set_variable", "variable": "var.exchange_bound", "value": "1"}}]})");
  const RuleSet rules = merge(default_rules(), extra);
  ASSERT_EQ(rules.rules.size(), default_rules().rules.size() + 1);
  EXPECT_EQ(rules.rules[1].when.text(), "max(map.busy) / mean(map.busy) > 5"); // replaced in place
  const Feedback feedback = test::feedback_of(test::sim_report({6000, 1000, 1000, 1000}, {4000, 4000, 4000, 4000}));
  const auto result = apply_rules(test::one_map_plan(4, {6, 1, 1, 1}), rules, feedback);
  ASSERT_EQ(result.trace.fired.size(), 1u) << explain(result.trace);
  EXPECT_EQ(result.trace.fired[0].rule, "mark-exchange-bound");
}

TEST(Tuning, ExplainNamesPredicateValuesChangeAndPrediction) {
  const auto result = apply_rules(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(),
                                  test::feedback_of(test::sim_report({6000, 1000, 1000, 1000}, {0, 0, 0, 0})));
  const std::string text = explain(result.trace);
  EXPECT_EQ(text,
            "pass 1: rule 'rebalance-busy-tiles' (default, priority 50) fired on map 'map'\n"
            "  when map.tiles > 1 and min(map.busy) > 0 and max(map.busy) / mean(map.busy) > 1.05\n"
            "    map.tiles = 4\n"
            "    map.busy = [6000, 1000, 1000, 1000]\n"
            "  rebalance: weights [6, 1, 1, 1] -> [1, 1, 1, 1]\n"
            "  predicted: max busy cycles on map 'map' (busy scales with weight share) 6000 -> 2250\n"
            "1 rule firing(s), 2 pass(es)\n");
}

TEST(Tuning, ARuleThatCannotBeEvaluatedIsReportedNotFired) {
  // The map spans 4 tiles, the report only 2: map.busy cannot be had.
  const auto result = apply_rules(test::one_map_plan(4, {}), default_rules(),
                                  test::feedback_of(test::sim_report({1000, 5000}, {0, 0})));
  EXPECT_TRUE(result.trace.fired.empty());
  ASSERT_EQ(result.trace.errors.size(), 1u);
  EXPECT_EQ(result.trace.errors[0].rule, "rebalance-busy-tiles");
  EXPECT_EQ(result.trace.errors[0].error, "map.busy: map 'map' runs on tile 2, the report has 2 tiles");
}

TEST(Tuning, FeedbackFromASimulatorReport) {
  ir::Diagnostics diagnostics;
  const auto feedback =
      feedback_from_text(test::data_file("weighted_6111.report.json"), "", "weighted_6111.report.json", diagnostics);
  ASSERT_TRUE(feedback.has_value()) << diagnostics.items()[0].message;
  ASSERT_EQ(feedback->tiles, 4);
  EXPECT_EQ(feedback->chips, 1);
  EXPECT_EQ(feedback->compute, (std::vector<double>{6000, 1000, 1000, 1000}));
  EXPECT_GT(feedback->busy[0], 5 * feedback->busy[1]);
  EXPECT_GT(feedback->exchange_cycles, 0);
  EXPECT_GT(feedback->peak_memory[0], 0);
  EXPECT_EQ(feedback->free_memory[0], feedback->sram_bytes - feedback->peak_memory[0]);
  // And the default rules move its weights toward balance.
  const auto result = apply_rules(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), *feedback);
  ASSERT_EQ(result.trace.fired.size(), 1u) << explain(result.trace);
  EXPECT_LT(spread(result.plan.maps[0].weights), 6.0 / 2);
}

TEST(Tuning, FeedbackFromAProgramReport) {
  nlohmann::ordered_json launch = test::sim_report({10, 20}, {1, 1});
  launch["kernel"] = "k";
  launch["backend"] = "fabric simulator";
  nlohmann::ordered_json warps = {{"kernel", "k"},
                                  {"warps", {{{"warp", 0}, {"busy_cycles", 75}, {"waiting_cycles", 25}},
                                             {{"warp", 1}, {"busy_cycles", 100}, {"waiting_cycles", 0}}}}};
  nlohmann::ordered_json other = {{"kernel", "other"}, {"backend", "fabric simulator"}};
  const nlohmann::ordered_json report = {{"format", "seq2par.sim-report/1"}, {"launches", {other, launch, warps}}};
  ir::Diagnostics diagnostics;
  const auto feedback = feedback_from_report(report, "k", "r.json", diagnostics);
  ASSERT_TRUE(feedback.has_value()) << diagnostics.items()[0].message;
  EXPECT_EQ(feedback->compute, (std::vector<double>{10, 20}));
  EXPECT_EQ(feedback->warp_bubble, (std::vector<double>{0.25, 0}));
  EXPECT_FALSE(feedback_from_report(report, "missing", "r.json", diagnostics));
  EXPECT_NE(diagnostics.items().back().message.find("field 'launches': no launch of kernel 'missing'"), std::string::npos);
}

// A multi-tile kernel launches each of its steps: the feedback is the sum of its fabric
// launches (a fused plan of three steps, one launch, compares with the three launches of the
// plan as written), not its last launch alone.
TEST(Tuning, FeedbackSumsAKernelsLaunches) {
  nlohmann::ordered_json first = test::sim_report({10, 20}, {1, 1});
  first["kernel"] = "k";
  nlohmann::ordered_json second = test::sim_report({30, 5}, {2, 0});
  second["kernel"] = "k";
  const nlohmann::ordered_json report = {{"format", "seq2par.sim-report/1"}, {"launches", {first, second}}};
  ir::Diagnostics diagnostics;
  const auto both = feedback_from_report(report, "k", "r.json", diagnostics);
  const auto one = feedback_from_report({{"format", "seq2par.sim-report/1"}, {"launches", {second}}}, "k",
                                        "r.json", diagnostics);
  ASSERT_TRUE(both && one) << diagnostics.items()[0].message;
  EXPECT_EQ(both->compute, (std::vector<double>{40, 25}));
  EXPECT_EQ(both->tiles, 2);
  EXPECT_GT(both->total_cycles, one->total_cycles);
  EXPECT_GT(both->busy[0], one->busy[0]);
}

// A multi-tile kernel whose forall tasks are warp pipelines: its fabric launch's task_warps
// sum each warp's busy cycles and the tasks' cycles per tile; a warp's bubble is its idle
// share over all tiles, and a warp that ran nothing (warp 1 here) idles all the time.
TEST(Tuning, FeedbackFromTaskWarps) {
  nlohmann::ordered_json launch = test::sim_report({10, 20}, {1, 1});
  launch["kernel"] = "k";
  launch["task_warps"] = {
      {"per_tile",
       {{{"tile", 0}, {"cycles", 100}, {"warps", {{{"warp", 0}, {"busy_cycles", 80}}, {{"warp", 2}, {"busy_cycles", 50}}}}},
        {{"tile", 1}, {"cycles", 100}, {"warps", {{{"warp", 0}, {"busy_cycles", 60}}}}}}}};
  const nlohmann::ordered_json report = {{"format", "seq2par.sim-report/1"}, {"launches", {launch}}};
  ir::Diagnostics diagnostics;
  const auto feedback = feedback_from_report(report, "k", "r.json", diagnostics);
  ASSERT_TRUE(feedback.has_value()) << diagnostics.items()[0].message;
  ASSERT_EQ(feedback->warp_bubble.size(), 3u);
  EXPECT_DOUBLE_EQ(feedback->warp_bubble[0], 0.3);
  EXPECT_EQ(feedback->warp_bubble[1], 1);
  EXPECT_EQ(feedback->warp_bubble[2], 0.75);
  launch["task_warps"]["per_tile"][1]["warps"][0].erase("busy_cycles");
  EXPECT_FALSE(feedback_from_report({{"format", "seq2par.sim-report/1"}, {"launches", {launch}}}, "k",
                                    "r.json", diagnostics));
  EXPECT_NE(diagnostics.items().back().message.find(
                "field 'launches[0].task_warps.per_tile[1].warps[0].busy_cycles': missing"),
            std::string::npos)
      << diagnostics.items().back().message;
}

TEST(Tuning, FeedbackErrorsNameTheField) {
  auto report = test::sim_report({10, 20}, {1, 1});
  report["tiles"]["per_tile"][1].erase("busy_cycles");
  ir::Diagnostics diagnostics;
  EXPECT_FALSE(feedback_from_report(report, "", "r.json", diagnostics));
  ASSERT_EQ(diagnostics.items().size(), 1u);
  EXPECT_EQ(diagnostics.items()[0].message, "field 'tiles.per_tile[1].busy_cycles': missing");
  report = test::sim_report({10, 20}, {1, 1});
  report["supersteps"][0]["exchange_cycles"] = -4;
  EXPECT_FALSE(feedback_from_report(report, "", "r.json", diagnostics));
  EXPECT_NE(diagnostics.items().back().message.find("field 'supersteps[0].exchange_cycles': must be in [0, "),
            std::string::npos);
}

} // namespace
} // namespace s2p::tuning

namespace s2p::tuning {
namespace {

RoundInputs round_inputs() {
  KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  plan.kernel = "weighted_6111";
  RoundInputs inputs;
  inputs.plan = {"weighted_6111.plan.json", to_json(plan).dump(1)};
  inputs.report = {"weighted_6111.report.json", test::data_file("weighted_6111.report.json")};
  return inputs;
}

TEST(Tuning, ARoundFromFiles) {
  RoundInputs inputs = round_inputs();
  inputs.failed_tiles = {3};
  inputs.rules.push_back({"mine.rules.json", R"({"format": "seq2par.rules/1", "rules": [
    {"name": "note-size", "when": "input.rows > 1000", "action": {"kind": "set_variable", "variable": "var.big", "value": "1"}}]})"});
  inputs.inputs["rows"] = 4096;
  ir::Diagnostics diagnostics;
  const auto result = run_round(inputs, diagnostics);
  ASSERT_TRUE(result.has_value()) << diagnostics.items()[0].message;
  ASSERT_EQ(result->trace.fired.size(), 3u) << explain(result->trace);
  EXPECT_EQ(result->trace.fired[0].rule, "repartition-failed-tiles");
  EXPECT_EQ(result->trace.fired[1].rule, "rebalance-busy-tiles"); // over tiles 0, 1, 2
  EXPECT_EQ(result->trace.fired[2].rule, "note-size");
  EXPECT_EQ(result->plan.maps[0].tiles, 3);
  EXPECT_EQ(result->plan.failed_tiles, (std::vector<int>{3}));
  EXPECT_EQ(result->plan.variables.at("big"), 1);
}

TEST(Tuning, ARoundReportsEveryMalformedInput) {
  RoundInputs inputs = round_inputs();
  inputs.rules.push_back({"bad.rules.json", R"({"format": "seq2par.rules/1", "rules": [
    {"name": "typo", "when": "max(tile.bussy) > 1", "action": {"kind": "fuse"}}]})"});
  inputs.rules.push_back({"good.rules.json", R"({"format": "seq2par.rules/1", "rules": []})"});
  inputs.report.text = "{}";
  ir::Diagnostics diagnostics;
  EXPECT_FALSE(run_round(inputs, diagnostics));
  ASSERT_EQ(diagnostics.items().size(), 2u);
  EXPECT_EQ(diagnostics.items()[0].loc.file, "bad.rules.json");
  EXPECT_EQ(diagnostics.items()[0].message,
            "rule 'typo' (rules[0]): field 'rules[0].when': at column 5: unknown variable 'tile.bussy'");
  EXPECT_EQ(diagnostics.items()[1].loc.file, "weighted_6111.report.json");
  EXPECT_EQ(diagnostics.items()[1].message, "field 'format': missing");
}

} // namespace
} // namespace s2p::tuning

namespace s2p::tuning {
namespace {

// A program's own report (S2P_BACKEND=sim S2P_REPORT=... sample_owner_copy_par): scaled_sum's
// map deals 2:1:1 to three equally fast tiles, so tile 0 is busy about twice as long, and the
// default rules move the weights toward 1:1:1.
TEST(Tuning, DefaultRulesOnTheOwnerCopySamplesReport) {
  ir::Diagnostics diagnostics;
  const auto feedback = feedback_from_text(test::data_file("owner_copy.program-report.json"), "scaled_sum",
                                           "owner_copy.program-report.json", diagnostics);
  ASSERT_TRUE(feedback.has_value()) << diagnostics.items()[0].message;
  EXPECT_EQ(feedback->busy, (std::vector<double>{2208, 1202, 1203}));
  KernelPlan plan = test::one_map_plan(3, {2, 1, 1});
  plan.kernel = "scaled_sum";
  const auto result = apply_rules(plan, default_rules(), *feedback);
  ASSERT_EQ(result.trace.fired.size(), 1u) << explain(result.trace);
  EXPECT_EQ(result.plan.maps[0].weights, (std::vector<double>{1.09, 1.001, 1})); // 2/2208 : 1/1202 : 1/1203
}

} // namespace
} // namespace s2p::tuning
