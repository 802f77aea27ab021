// One round of feedback-driven re-optimization: a plan, a rule set and the feedback of a run
// in; the adjusted plan, the rule set as the rules left it (add / revoke / change) and a trace
// of what fired out. Deterministic: the same inputs give the same outputs, byte for byte.
//
// Evaluation order (fixed):
//   1. Rules are taken by priority, highest first; equal priorities keep rule-set order (the
//      default set's rules, then each --rules file's in file order; tuning::merge). A rule
//      added by add_rule is placed by its priority, after the rules of equal priority.
//   2. A rule with for_each "map" / "pool" is evaluated for each map / pool in plan order.
//   3. A rule fires at most once per target per round. An action takes effect at once: later
//      rules in the same pass see the adjusted plan, the new variables and the new rule set.
//   4. Passes repeat while the previous pass fired something (set_variable may make another
//      rule's predicate true: chaining), at most ApplyOptions::max_passes passes; the trace
//      says when that bound stopped it.
// A predicate or action that cannot be evaluated (a division by zero, arrays of different
// lengths, a fusion with no run of foralls) is recorded in the trace, and the rule does not
// fire; it is never an exception.
#pragma once

#include "tuning/feedback.h"
#include "tuning/plan.h"
#include "tuning/rules.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace s2p::tuning {

struct ApplyOptions {
  int max_passes = 4;          // chaining bound
  std::size_t max_rules = 256; // add_rule refuses to grow the set past this
};

// What an action is expected to change, by the simple model the action names.
struct Prediction {
  std::string quantity; // "max busy cycles of map 'map' (busy scales with weight share)"
  double before = 0;
  double after = 0;
};

struct Firing {
  int pass = 0;
  std::string rule;
  std::string origin;
  int priority = 0;
  std::string target; // "map 'm'", "pool 'p'", or "kernel"
  std::string predicate;
  std::vector<std::pair<std::string, std::string>> values; // each variable it read, rendered
  ActionKind action = ActionKind::SetVariable;
  std::string change; // "weights [6, 1, 1, 1] -> [1, 1, 1, 1]"
  std::optional<Prediction> predicted;
  std::string not_predicted; // why there is no prediction
};

struct RuleError {
  int pass = 0;
  std::string rule;
  std::string target;
  std::string error;
};

struct Trace {
  std::vector<Firing> fired; // in firing order
  std::vector<RuleError> errors;
  int passes = 0;
  bool stopped_at_bound = false; // the last pass fired something and max_passes was reached
};

struct ApplyResult {
  KernelPlan plan;
  RuleSet rules;
  Trace trace;
};

ApplyResult apply_rules(const KernelPlan& plan, const RuleSet& rules, const Feedback& feedback,
                        const ApplyOptions& options = {});

// The rules in evaluation order (rule 1 above): indices into `rules.rules`.
std::vector<std::size_t> evaluation_order(const RuleSet& rules);

// `--explain`: one paragraph per firing (predicate with the values it read, the change, the
// predicted effect), then the errors and how the passes ended.
std::string explain(const Trace& trace);
// Weights scaled so that the smallest is 1, to 3 decimals: readable, and the same inputs give
// the same digits (what rebalance writes, and central/local merges). Not empty.
std::vector<double> normalized_weights(std::vector<double> weights);
// A number as the trace and the tune table print it (%.6g).
std::string number_text(double v);
nlohmann::ordered_json to_json(const Trace& trace);

} // namespace s2p::tuning
