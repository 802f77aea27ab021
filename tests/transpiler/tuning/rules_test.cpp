// The rule language: expressions, the rule file's errors (naming the rule and the field), the
// evaluation order, bounded chaining, determinism, and rules that add, revoke and change rules.
#include "tuning/apply.h"
#include "tuning/expr.h"
#include "tuning/rules.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace s2p::tuning {
namespace {

Value eval(const std::string& text) {
  std::string error;
  const auto expr = Expr::parse(text, [](std::string_view n) { return n == "a" || n == "t.x"; }, error);
  if (!expr)
    throw std::runtime_error(error);
  return expr->evaluate([](std::string_view n) {
    return n == "a" ? Value::number(2) : Value::list({6, 1, 1, 1});
  });
}

std::string parse_error(const std::string& text) {
  std::string error;
  const auto expr = Expr::parse(text, [](std::string_view n) { return n == "a"; }, error);
  return expr ? "" : error;
}

TEST(Rules, ExpressionsEvaluate) {
  EXPECT_EQ(eval("1 + 2 * 3"), Value::number(7));
  EXPECT_EQ(eval("(1 + 2) * 3"), Value::number(9));
  EXPECT_EQ(eval("-a - -1"), Value::number(-1));
  EXPECT_EQ(eval("max(t.x) / mean(t.x) > 2.6"), Value::number(1)); // 6 / 2.25 = 2.67
  EXPECT_EQ(eval("max(t.x) / mean(t.x) > 2.7"), Value::number(0));
  EXPECT_EQ(eval("t.x / a"), Value::list({3, 0.5, 0.5, 0.5}));
  EXPECT_EQ(eval("count(t.x > 1)"), Value::number(1));
  EXPECT_EQ(eval("len(t.x) + sum(t.x) + min(t.x)"), Value::number(4 + 9 + 1));
  EXPECT_EQ(eval("min(a, 5) + max(a, 5)"), Value::number(7));
  EXPECT_EQ(eval("not (a == 2) or a != 2 || !0"), Value::number(1));
  EXPECT_EQ(eval("a >= 2 and a <= 2 && a < 3"), Value::number(1));
  EXPECT_EQ(eval("0 and 1 / 0"), Value::number(0)); // short-circuit
}

TEST(Rules, ExpressionErrors) {
  EXPECT_EQ(parse_error("a +"), "at column 4: expected a value, got the end");
  EXPECT_EQ(parse_error("b > 1"), "at column 1: unknown variable 'b'");
  EXPECT_EQ(parse_error("median(a)"), "at column 1: unknown function 'median' (min, max, sum, mean, count, len, abs)");
  EXPECT_EQ(parse_error("(a"), "at column 3: expected ')'");
  EXPECT_EQ(parse_error("a $ 1"), "at column 3: unexpected '$'");
  EXPECT_EQ(parse_error("sum(a, a)"), "at column 1: sum() takes one argument");
  EXPECT_EQ(parse_error(std::string(3000, '(') + "a" + std::string(3000, ')')).find("nested too deeply") !=
                std::string::npos,
            true);
  EXPECT_THROW(eval("a / 0"), EvalError);
  EXPECT_THROW(eval("t.x + t.x / t.x * (len(t.x) > 0) - max(t.x, 1)"), EvalError); // max of two arrays
  EXPECT_THROW(eval("t.x and 1"), EvalError);
}

TEST(Rules, DefaultSetIsTheShippedFile) {
  std::ifstream in(SEQ2PAR_SOURCE_DIR "/transpiler/tuning/default_rules.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), default_rules_text());
  const RuleSet& rules = default_rules();
  ASSERT_EQ(rules.rules.size(), 6u);
  EXPECT_EQ(rules.rules[0].name, "repartition-failed-tiles");
  EXPECT_EQ(rules.rules[1].name, "rebalance-busy-tiles");
  EXPECT_EQ(rules.rules[2].name, "deepen-ring-on-bubbles");
  EXPECT_EQ(rules.rules[3].name, "fuse-three-foralls");
  EXPECT_EQ(rules.rules[4].name, "split-on-peak-memory");
  EXPECT_EQ(rules.rules[5].name, "try-next-variant");
  EXPECT_EQ(rules.rules[1].origin, "default");
}

std::string one_rule(const std::string& rule) {
  return R"({"format": "seq2par.rules/1", "rules": [)" + rule + "]}";
}

TEST(Rules, ErrorsNameTheRuleAndTheField) {
  struct Case {
    std::string text;
    const char* expected;
  };
  const Case cases[] = {
      {one_rule(R"({"name": "r", "for_each": "map", "when": "max(tile.bsy) > 1", "action": {"kind": "repartition"}})"),
       "rule 'r' (rules[0]): field 'rules[0].when': at column 5: unknown variable 'tile.bsy'"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "rebalance", "weights": "1"}})"),
       "rule 'r' (rules[0]): field 'rules[0].action.kind': rebalance acts on a map: the rule needs \"for_each\": \"map\""},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "explode"}})"),
       "rule 'r' (rules[0]): field 'rules[0].action.kind': unknown action \"explode\""},
      {one_rule(R"({"name": "r", "action": {"kind": "fuse"}})"), "rule 'r' (rules[0]): field 'rules[0].when': missing"},
      {one_rule(R"({"name": "r", "when": "map.tiles > 1", "action": {"kind": "fuse"}})"),
       "field 'rules[0].when': at column 1: unknown variable 'map.tiles'"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "fuse", "count": 1}})"),
       "rule 'r' (rules[0]): field 'rules[0].action.count': must be in [2, "},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "set_variable", "variable": "x", "value": "1"}})"),
       "field 'rules[0].action.variable': a rule variable is named var.<name>"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "add_rule", "rule": {"name": "s", "when": "(", "action": {"kind": "fuse"}}}})"),
       "rule 'r' (rules[0]): rule 's' (rules[0].action.rule): field 'rules[0].action.rule.when': at column 2: "
       "expected a value"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "change_rule", "rule": "s"}})"),
       "field 'rules[0].action': change_rule changes nothing"},
      {one_rule(R"({"name": "r", "when": "1", "priority": "high", "action": {"kind": "fuse"}})"),
       "rule 'r' (rules[0]): field 'rules[0].priority': expected an integer"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "fuse"}, "then": 1})"),
       "rule 'r' (rules[0]): field 'rules[0].then': unknown field"},
      {one_rule(R"({"when": "1", "action": {"kind": "fuse"}})"), "rule rules[0]: field 'rules[0].name': missing"},
      {one_rule(R"({"name": "r", "when": "1", "action": {"kind": "fuse"}}, {"name": "r", "when": "1", "action": {"kind": "fuse"}})"),
       "rule 'r' (rules[1]): field 'rules[1].name': the name is taken by rules[0]"},
      {R"({"format": "seq2par.rules/2", "rules": []})", "field 'format': expected \"seq2par.rules/1\""},
      {R"({"format": "seq2par.rules/1", "rules": [}")", "invalid JSON at 1:"},
  };
  for (const Case& c : cases)
    EXPECT_NE(test::first_error(c.text).find(c.expected), std::string::npos)
        << c.text << "\n  -> " << test::first_error(c.text);
}

// Each rule appends its number to var.log (log * 10 + n): the log is the firing order.
std::string logging_rule(const std::string& name, int priority, int n) {
  return R"({"name": ")" + name + R"(", "priority": )" + std::to_string(priority) +
         R"(, "when": "1", "action": {"kind": "set_variable", "variable": "var.log", "value": "var.log * 10 + )" +
         std::to_string(n) + R"("}})";
}

TEST(Rules, EvaluationOrderIsPriorityThenFileOrder) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [)" + logging_rule("a", 10, 1) +
                                       "," + logging_rule("b", 30, 2) + "," + logging_rule("c", 30, 3) + "," +
                                       logging_rule("d", 20, 4) + "]}");
  EXPECT_EQ(evaluation_order(rules), (std::vector<std::size_t>{1, 2, 3, 0}));
  const auto result = apply_rules(test::one_map_plan(4, {}), rules, test::feedback_of(test::sim_report({1, 1, 1, 1}, {0, 0, 0, 0})));
  EXPECT_EQ(result.plan.variables.at("log"), 2341);
  ASSERT_EQ(result.trace.fired.size(), 4u);
  EXPECT_EQ(result.trace.fired[0].rule, "b");
  EXPECT_EQ(result.trace.fired[3].rule, "a");
}

// c enables b, b enables a; evaluated a, b, c, so each step of the chain needs a new pass.
const char* kChain = R"({"format": "seq2par.rules/1", "rules": [
  {"name": "a", "priority": 3, "when": "var.c == 1", "action": {"kind": "set_variable", "variable": "var.d", "value": "1"}},
  {"name": "b", "priority": 2, "when": "var.b == 1", "action": {"kind": "set_variable", "variable": "var.c", "value": "1"}},
  {"name": "c", "priority": 1, "when": "1", "action": {"kind": "set_variable", "variable": "var.b", "value": "1"}}]})";

TEST(Rules, ChainingThroughVariablesIsBounded) {
  const RuleSet rules = test::rules_of(kChain);
  const Feedback feedback = test::feedback_of(test::sim_report({1, 1}, {0, 0}));
  const auto full = apply_rules(test::one_map_plan(2, {}), rules, feedback);
  ASSERT_EQ(full.trace.fired.size(), 3u);
  EXPECT_EQ(full.trace.fired[2].rule, "a");
  EXPECT_EQ(full.trace.fired[2].pass, 3);
  EXPECT_EQ(full.trace.passes, 4); // the fourth pass fires nothing: done
  EXPECT_FALSE(full.trace.stopped_at_bound);
  EXPECT_EQ(full.plan.variables.at("d"), 1);

  ApplyOptions two;
  two.max_passes = 2;
  const auto bounded = apply_rules(test::one_map_plan(2, {}), rules, feedback, two);
  EXPECT_EQ(bounded.trace.fired.size(), 2u);
  EXPECT_EQ(bounded.trace.passes, 2);
  EXPECT_TRUE(bounded.trace.stopped_at_bound);
  EXPECT_FALSE(bounded.plan.variables.contains("d"));
  EXPECT_NE(explain(bounded.trace).find("stopped at the chaining bound"), std::string::npos);
}

TEST(Rules, AddRevokeAndChangeRules) {
  const RuleSet rules = test::rules_of(R"({"format": "seq2par.rules/1", "rules": [
    {"name": "revoker", "priority": 9, "when": "1", "action": {"kind": "revoke_rule", "rule": "victim"}},
    {"name": "victim", "priority": 5, "when": "1", "action": {"kind": "set_variable", "variable": "var.victim", "value": "1"}},
    {"name": "changer", "priority": 4, "when": "1", "action": {"kind": "change_rule", "rule": "late", "when": "var.added == 1", "priority": 7}},
    {"name": "late", "priority": 1, "when": "0", "action": {"kind": "set_variable", "variable": "var.late", "value": "1"}},
    {"name": "adder", "priority": 3, "when": "1", "action": {"kind": "add_rule", "rule":
      {"name": "added", "priority": 2, "when": "1", "action": {"kind": "set_variable", "variable": "var.added", "value": "1"}}}}]})");
  const auto result = apply_rules(test::one_map_plan(2, {}), rules, test::feedback_of(test::sim_report({1, 1}, {0, 0})));
  EXPECT_FALSE(result.plan.variables.contains("victim")); // revoked before its turn
  EXPECT_EQ(result.plan.variables.at("added"), 1);         // the added rule fired, in pass 2
  EXPECT_EQ(result.plan.variables.at("late"), 1);          // its new predicate held in pass 3
  ASSERT_EQ(result.trace.fired.size(), 5u);
  EXPECT_EQ(result.trace.fired[3].rule, "added");
  EXPECT_EQ(result.trace.fired[3].pass, 2);
  EXPECT_EQ(result.trace.fired[4].rule, "late");
  EXPECT_EQ(result.trace.fired[4].pass, 3);
  std::vector<std::string> names;
  for (const auto& rule : result.rules.rules)
    names.push_back(rule.name + ":" + std::to_string(rule.priority));
  EXPECT_EQ(names, (std::vector<std::string>{"revoker:9", "changer:4", "late:7", "adder:3", "added:2"}));
  EXPECT_EQ(result.rules.rules[2].when.text(), "var.added == 1");
  // The rule set the round leaves is a rule file again.
  ir::Diagnostics diagnostics;
  EXPECT_TRUE(rules_from_json(to_json(result.rules), "out.rules.json", diagnostics));
}

TEST(Rules, ApplyIsDeterministic) {
  const RuleSet rules = merge(default_rules(), test::rules_of(kChain));
  KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  plan.steps.assign(3, {ir::TileStep::Kind::Forall, "map"});
  plan.pools.push_back({"buf", 1, ""});
  Feedback feedback = test::feedback_of(test::sim_report({6000, 1000, 1000, 1000}, {200, 200, 200, 200}));
  feedback.warp_bubble = {0.5, 0.1};
  const auto first = apply_rules(plan, rules, feedback);
  const auto second = apply_rules(plan, rules, feedback);
  EXPECT_EQ(to_json(first.plan).dump(1), to_json(second.plan).dump(1));
  EXPECT_EQ(to_json(first.trace).dump(1), to_json(second.trace).dump(1));
  EXPECT_EQ(explain(first.trace), explain(second.trace));
  EXPECT_EQ(to_json(first.rules).dump(), to_json(second.rules).dump());
  EXPECT_EQ(first.trace.fired.size(), 6u); // 3 defaults (rebalance, ring, fuse) + the chain
}

} // namespace
} // namespace s2p::tuning
