// Mutation fuzzing of the tuning readers, in the spirit of the simulator's JSON fuzzing
// (tests/sim/fuzz): rule files, plan files and reports with bytes flipped, dropped, repeated
// and JSON-ish tokens spliced in. Every input must end in a parsed value or exactly one error
// message; a rule set that parses is also applied, which must not throw. A fixed seed keeps
// the run reproducible; the seed and the input are printed when a case fails.
#include "tuning/apply.h"
#include "tuning/feedback.h"
#include "tuning/plan.h"
#include "tuning/rules.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <random>

namespace s2p::tuning {
namespace {

const char* const kSplices[] = {"\"", "{", "}", "[", "]", ",", ":", "-1", "1e999", "0.5", "null", "true",
                                "((((", "max(", "tile.busy", "map.weights / ", "\"kind\": \"add_rule\"",
                                "\"for_each\": \"pool\"", "\\u0000", "/", " and ", "99999999999999999999"};

std::string mutate(std::string text, std::mt19937& random) {
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = random() % text.size();
    switch (random() % 4) {
    case 0: text[at] = static_cast<char>(random() % 256); break;
    case 1: text.erase(at, 1 + random() % 8); break;
    case 2: text.insert(at, text.substr(at, 1 + random() % 16)); break;
    default: text.insert(at, kSplices[random() % std::size(kSplices)]); break;
    }
  }
  return text;
}

void pointers(const nlohmann::ordered_json& json, const std::string& at, std::vector<std::string>& out) {
  out.push_back(at);
  if (json.is_object())
    for (const auto& [key, value] : json.items())
      pointers(value, at + "/" + key, out);
  if (json.is_array())
    for (std::size_t i = 0; i < json.size(); ++i)
      pointers(json[i], at + "/" + std::to_string(i), out);
}

// Structure-aware mutation: one value of the parsed seed replaced by a value of another type,
// a boundary number or an expression fragment, or its key removed. Byte mutations mostly make
// the JSON invalid; these reach the field readers.
std::string mutate_value(const std::string& seed, std::mt19937& random) {
  static const nlohmann::ordered_json kValues[] = {
      nullptr, true, -1, 0, 0.5, 1e300, "x", "max(", "tile.busy", "map.weights / 0",
      nlohmann::ordered_json::array(), nlohmann::ordered_json::object(), {1, 2},
      18446744073709551615ULL, -9223372036854775807LL, "repartition", "map"};
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(seed);
  std::vector<std::string> all;
  pointers(json, "", all);
  const int edits = 1 + static_cast<int>(random() % 3);
  for (int e = 0; e < edits; ++e) {
    const nlohmann::ordered_json::json_pointer at(all[random() % all.size()]);
    if (at.empty() || !json.contains(at)) // an earlier edit replaced a parent
      continue;
    if (random() % 4 == 0 && json[at.parent_pointer()].is_object())
      json[at.parent_pointer()].erase(at.back());
    else
      json[at] = kValues[random() % std::size(kValues)];
  }
  return json.dump();
}

std::string any_mutation(const std::string& seed, std::mt19937& random) {
  return random() % 2 ? mutate(seed, random) : mutate_value(seed, random);
}

// Every action kind, both scopes with bindings, and nested rules: the mutations reach them all.
const char* kAllActions = R"({"format": "seq2par.rules/1", "rules": [
  {"name": "a", "priority": 5, "for_each": "map", "when": "max(map.busy) / mean(map.busy) > 1", "action": {"kind": "rebalance", "weights": "map.weights / map.busy"}},
  {"name": "b", "for_each": "map", "when": "map.failed >= 0", "action": {"kind": "repartition", "tiles": "map.tiles - 1"}},
  {"name": "c", "for_each": "pool", "when": "pool.depth < 4", "action": {"kind": "set_ring_depth", "depth": "pool.depth + 1", "max": 4}},
  {"name": "d", "when": "1", "action": {"kind": "set_warp", "op": "k.cpp:3", "warp": "1"}},
  {"name": "e", "when": "plan.consecutive_foralls > 1", "action": {"kind": "fuse", "count": 2}},
  {"name": "f", "when": "1", "action": {"kind": "split", "step": 0, "parts": 2}},
  {"name": "g", "when": "1", "action": {"kind": "substitute", "op": "k.cpp:4", "variant": "v2"}},
  {"name": "h", "when": "var.x < 3", "action": {"kind": "set_variable", "variable": "var.x", "value": "var.x + 1"}},
  {"name": "i", "when": "1", "action": {"kind": "add_rule", "rule": {"name": "j", "when": "1", "action": {"kind": "revoke_rule", "rule": "h"}}}},
  {"name": "k", "when": "1", "action": {"kind": "change_rule", "rule": "a", "when": "min(tile.busy) > 0", "priority": 9}}]})";

void check_one_error(const ir::Diagnostics& diagnostics, bool parsed, const std::string& input) {
  if (parsed) {
    EXPECT_FALSE(diagnostics.has_errors()) << input;
    return;
  }
  ASSERT_EQ(diagnostics.items().size(), 1u) << input;
  EXPECT_FALSE(diagnostics.items()[0].message.empty()) << input;
}

TEST(Rules, MutatedRuleFilesNeverCrash) {
  KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  plan.steps.assign(3, {ir::TileStep::Kind::Forall, "map"});
  plan.pools.push_back({"buf", 1, ""});
  const Feedback feedback = test::feedback_of(test::sim_report({6000, 1000, 1000, 1000}, {10, 10, 10, 10}));
  std::mt19937 random(20261124);
  int parsed_count = 0;
  for (const std::string& seed : {std::string(kAllActions), std::string(default_rules_text())}) {
    for (int i = 0; i < 3000; ++i) {
      const std::string input = any_mutation(seed, random);
      ir::Diagnostics diagnostics;
      const auto rules = rules_from_text(input, "fuzz.rules.json", diagnostics);
      check_one_error(diagnostics, rules.has_value(), input);
      if (rules) {
        ++parsed_count;
        EXPECT_NO_THROW((void)explain(apply_rules(plan, merge(default_rules(), *rules), feedback).trace)) << input;
      }
    }
  }
  EXPECT_GT(parsed_count, 50); // the mutations also reach the evaluator, not only the parser
}

TEST(PlanFile, MutatedPlanFilesNeverCrash) {
  KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  plan.pools.push_back({"buf", 2, ""});
  plan.fusions.push_back({0, 1 + 1});
  plan.steps.push_back({ir::TileStep::Kind::Forall, "map"});
  const std::string seed = to_json(plan).dump(1);
  std::mt19937 random(7);
  for (int i = 0; i < 3000; ++i) {
    const std::string input = any_mutation(seed, random);
    ir::Diagnostics diagnostics;
    const auto parsed = plan_from_text(input, "fuzz.plan.json", diagnostics);
    check_one_error(diagnostics, parsed.has_value(), input);
  }
}

TEST(Tuning, MutatedReportsNeverCrash) {
  const std::string seed = test::data_file("weighted_6111.report.json");
  ASSERT_FALSE(seed.empty());
  std::mt19937 random(11);
  for (int i = 0; i < 2000; ++i) {
    const std::string input = any_mutation(seed, random);
    ir::Diagnostics diagnostics;
    const auto feedback = feedback_from_text(input, "", "fuzz.report.json", diagnostics);
    check_one_error(diagnostics, feedback.has_value(), input);
    if (feedback) { // braces: gtest's macro ends in an `if`/`else` (g++ -Wdangling-else)
      EXPECT_NO_THROW((void)apply_rules(test::one_map_plan(4, {6, 1, 1, 1}), default_rules(), *feedback));
    }
  }
}

} // namespace
} // namespace s2p::tuning
