// Tuning rules (`seq2par.rules/1`): predicate -> action, kept in a file separate from the
// program so that one rule set tunes many kernels and one kernel can be tuned with several.
//
//   {"format": "seq2par.rules/1",
//    "rules": [{"name": "rebalance-busy", "priority": 50, "for_each": "map",
//               "when": "max(map.busy) / mean(map.busy) > 1.1",
//               "action": {"kind": "rebalance", "weights": "map.weights / map.busy"}}]}
//
// `when` is an expression (tuning/expr.h) over the variables of tuning/variables.h; `for_each`
// ("kernel", the default, "map" or "pool") evaluates the rule once per resource map or pool of
// the plan with that map's or pool's variables bound. Actions are a fixed vocabulary
// (ActionKind), each with its own typed parameters (the reference is docs in rules.cpp's
// reader and docs/tuning.md, "Rules"). Evaluation order and chaining: tuning/apply.h.
#pragma once

#include "ir/diagnostic.h"
#include "tuning/expr.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::tuning {

inline constexpr std::string_view kRulesFormat = "seq2par.rules/1";

enum class Scope { Kernel, Map, Pool };
const char* to_string(Scope scope);
std::optional<Scope> parse_scope(std::string_view name);

enum class ActionKind {
  Rebalance,    // map: new weights from an array expression (normalized, smallest = 1)
  Repartition,  // map: deal the map over its tiles minus the failed ones (or `tiles` of them)
  SetRingDepth, // pool: ring depth from an expression, capped by `max`
  SetWarp,      // kernel: move operation `op` to warp `warp`
  Fuse,         // kernel: fuse the first `count` consecutive foralls on the same tiles
  Split,        // kernel: split step `step` (default: the first that can be) into `parts`
                // (default: as many as it can)
  Substitute,   // kernel: run intrinsic `op` (default: the first S2P_VARIANTS group with a
                // next variant) as its declared variant `variant` (default "next": the one
                // after the current choice)
  SetVariable,  // any: set rule variable `var.<name>` (may make other rules fire)
  AddRule,      // any: add `rule` to the rule set
  RevokeRule,   // any: remove the rule named `rule`
  ChangeRule,   // any: give the rule named `rule` a new `when` and/or `priority`
};
const char* to_string(ActionKind kind);
std::optional<ActionKind> parse_action_kind(std::string_view name);

struct Rule;

struct Action {
  ActionKind kind = ActionKind::SetVariable;
  std::optional<Expr> value; // rebalance: weights; set_ring_depth: depth; set_variable: value;
                             // repartition: tile count (optional); set_warp: warp
  std::string name;          // set_variable: variable; *_rule: rule name; set_warp/substitute: op
  std::string variant;       // substitute
  int count = 0;             // fuse: steps; split: parts (0: all it can); set_ring_depth: max
  int step = 0;              // split (-1: the first step that can be split and is not)
  std::shared_ptr<const Rule> rule;  // add_rule: the rule; change_rule: its new fields
  std::optional<int> new_priority;   // change_rule
};

struct Rule {
  std::string name;
  int priority = 0;
  Scope scope = Scope::Kernel;
  Expr when;
  Action action;
  std::string origin; // the file it came from ("default" for the shipped set)
};

struct RuleSet {
  std::vector<Rule> rules; // in file order; evaluation order is tuning/apply.h's
};

// Reads a rule set; a bad rule is an error at `source` naming the rule and the field
// ("rule 'rebalance-busy' (rules[1]): field 'rules[1].when': at column 5: unknown variable
// 'tile.bsy'"), and nothing is returned.
std::optional<RuleSet> rules_from_json(const nlohmann::ordered_json& json, const std::string& source,
                                       ir::Diagnostics& diagnostics);
std::optional<RuleSet> rules_from_text(std::string_view text, const std::string& source,
                                       ir::Diagnostics& diagnostics);
nlohmann::ordered_json to_json(const RuleSet& rules);
nlohmann::ordered_json to_json(const Rule& rule);

// The rules of `extra` evaluated together with `base` (the default set): a rule of `extra`
// with the name of a rule of `base` replaces it in place; the others follow base's.
RuleSet merge(RuleSet base, const RuleSet& extra);

// The default rule set shipped with seq2par (tuning/default_rules.json, compiled in).
const RuleSet& default_rules();
std::string_view default_rules_text();

} // namespace s2p::tuning
