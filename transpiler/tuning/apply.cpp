#include "tuning/apply.h"

#include "tuning/variables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

namespace s2p::tuning {

namespace {

std::string list_text(const std::vector<double>& xs) {
  return to_string(Value::list(xs));
}

std::string list_text(const std::vector<int>& xs) {
  return list_text(std::vector<double>(xs.begin(), xs.end()));
}

// The state one round works on; actions change it in place.
struct State {
  KernelPlan plan;
  RuleSet rules;
  const Feedback& feedback;
  const ApplyOptions& options;
};

// One evaluation target: the kernel, or one map or pool of the plan (by index).
struct Target {
  Scope scope = Scope::Kernel;
  std::size_t index = 0;
  std::string label;
};

std::vector<Target> targets_of(Scope scope, const KernelPlan& plan) {
  std::vector<Target> out;
  if (scope == Scope::Kernel)
    out.push_back({scope, 0, "kernel"});
  if (scope == Scope::Map)
    for (std::size_t i = 0; i < plan.maps.size(); ++i)
      out.push_back({scope, i, "map '" + plan.maps[i].name + "'"});
  if (scope == Scope::Pool)
    for (std::size_t i = 0; i < plan.pools.size(); ++i)
      out.push_back({scope, i, "pool '" + plan.pools[i].name + "'"});
  return out;
}

Bindings bind(const State& state, const Target& target) {
  Bindings b{state.feedback, state.plan, state.plan.variables};
  if (target.scope == Scope::Map)
    b.map = &state.plan.maps[target.index];
  if (target.scope == Scope::Pool)
    b.pool = &state.plan.pools[target.index];
  return b;
}

Value evaluate(const Expr& expr, const Bindings& b) {
  return expr.evaluate([&b](std::string_view name) { return lookup(b, name); });
}

double scalar_of(const Expr& expr, const Bindings& b, const char* what) {
  const Value v = evaluate(expr, b);
  if (v.array)
    throw EvalError(std::string(what) + " must be a number, got " + to_string(v));
  return v.scalar();
}

// Busy cycles scale with a tile's share of the weights (the owner-copy compute model: a tile
// computes the segments it owns).
Prediction predict_rebalance(const MapPlan& map, const std::vector<double>& busy,
                             const std::vector<double>& old_w, const std::vector<double>& new_w) {
  const double old_sum = std::accumulate(old_w.begin(), old_w.end(), 0.0);
  const double new_sum = std::accumulate(new_w.begin(), new_w.end(), 0.0);
  double after = 0;
  for (std::size_t t = 0; t < busy.size(); ++t)
    after = std::max(after, busy[t] * (new_w[t] / new_sum) / (old_w[t] / old_sum));
  return {"max busy cycles on map '" + map.name + "' (busy scales with weight share)",
          *std::max_element(busy.begin(), busy.end()), after};
}

void rebalance(State& state, const Rule& rule, const Target& target, Firing& firing) {
  const Bindings b = bind(state, target);
  const Value weights = evaluate(*rule.action.value, b);
  MapPlan& map = state.plan.maps[target.index];
  if (!weights.array || weights.items.size() != static_cast<std::size_t>(map.tiles))
    throw EvalError("weights must be an array of " + std::to_string(map.tiles) + ", got " + to_string(weights));
  for (const double w : weights.items)
    if (!(w > 0) || !std::isfinite(w))
      throw EvalError("weights must be positive, got " + to_string(weights));
  const std::vector<double> old_w = lookup(b, "map.weights").items;
  const std::vector<double> busy = lookup(b, "map.busy").items;
  const std::vector<double> new_w = normalized_weights(weights.items);
  firing.change = "weights " + list_text(old_w) + " -> " + list_text(new_w);
  firing.predicted = predict_rebalance(map, busy, old_w, new_w);
  map.weights = new_w;
}

bool failed(const State& state, int tile) {
  const auto& f = state.feedback.failed_tiles;
  const auto& p = state.plan.failed_tiles;
  return std::find(f.begin(), f.end(), tile) != f.end() || std::find(p.begin(), p.end(), tile) != p.end();
}

// The fabric tiles a repartitioned map gets: its own minus the failed ones, or with a tile
// count, the first `count` tiles of the fabric that have not failed.
std::vector<int> repartition_tiles(const State& state, const Rule& rule, const Target& target) {
  const MapPlan& map = state.plan.maps[target.index];
  std::vector<int> tiles;
  if (!rule.action.value) {
    for (int t = 0; t < map.tiles; ++t)
      if (!failed(state, fabric_tile(map, t)))
        tiles.push_back(fabric_tile(map, t));
  } else {
    const double count = scalar_of(*rule.action.value, bind(state, target), "tiles");
    const int fabric = std::max(state.feedback.tiles, state.plan.tiles);
    for (int t = 0; t < fabric && static_cast<double>(tiles.size()) < count; ++t)
      if (!failed(state, t))
        tiles.push_back(t);
    if (static_cast<double>(tiles.size()) != count)
      throw EvalError("tiles = " + number_text(count) + ": the fabric has " +
                      std::to_string(tiles.size()) + " usable tiles");
  }
  if (tiles.empty())
    throw EvalError("map '" + map.name + "' has no usable tile left");
  return tiles;
}

void repartition(State& state, const Rule& rule, const Target& target, Firing& firing) {
  const std::vector<int> tiles = repartition_tiles(state, rule, target);
  MapPlan& map = state.plan.maps[target.index];
  std::vector<int> before;
  for (int t = 0; t < map.tiles; ++t)
    before.push_back(fabric_tile(map, t));
  std::vector<double> weights;
  for (const int tile : tiles) {
    const auto it = std::find(before.begin(), before.end(), tile);
    const bool kept = it != before.end() && !map.weights.empty();
    weights.push_back(kept ? map.weights[static_cast<std::size_t>(it - before.begin())] : 1.0);
  }
  firing.change = "tiles " + list_text(before) + " -> " + list_text(tiles);
  firing.predicted = Prediction{"tiles sharing map '" + map.name + "' work",
                                static_cast<double>(before.size()), static_cast<double>(tiles.size())};
  map.tiles = static_cast<int>(tiles.size());
  map.weights = map.weights.empty() ? std::vector<double>{} : weights;
  bool identity = true;
  for (std::size_t i = 0; i < tiles.size(); ++i)
    identity = identity && tiles[i] == static_cast<int>(i);
  map.usable_tiles = identity ? std::vector<int>{} : tiles;
  state.plan.tiles = std::max(state.plan.tiles, tiles.back() + 1);
  for (const int tile : state.feedback.failed_tiles) // remembered for the next round
    if (std::find(state.plan.failed_tiles.begin(), state.plan.failed_tiles.end(), tile) == state.plan.failed_tiles.end())
      state.plan.failed_tiles.push_back(tile);
  std::sort(state.plan.failed_tiles.begin(), state.plan.failed_tiles.end());
}

// A pool whose depth is a tunable constant sets the tunable too (what --plan compiles), within
// the range its declaration allows.
void set_ring_depth(State& state, const Rule& rule, const Target& target, Firing& firing) {
  const double wanted = scalar_of(*rule.action.value, bind(state, target), "depth");
  double highest = static_cast<double>(rule.action.count), lowest = 1;
  PoolPlan& pool = state.plan.pools[target.index];
  TunablePlan* tunable = nullptr;
  if (const auto it = state.plan.tunables.find(pool.tunable); !pool.tunable.empty() && it != state.plan.tunables.end()) {
    tunable = &it->second;
    if (tunable->max)
      highest = std::min(highest, static_cast<double>(*tunable->max));
    if (tunable->min)
      lowest = std::max(lowest, static_cast<double>(*tunable->min));
  }
  const int depth = static_cast<int>(std::clamp(std::round(wanted), lowest, std::max(lowest, highest)));
  firing.change = "ring depth of pool '" + pool.name + "' " + std::to_string(pool.ring_depth) + " -> " +
                  std::to_string(depth) + (tunable ? " (tunable '" + pool.tunable + "')" : "");
  firing.not_predicted = "no model of bubbles against ring depth: the next run measures it";
  pool.ring_depth = depth;
  if (tunable)
    tunable->value = depth;
}

void set_warp(State& state, const Rule& rule, const Target& target, Firing& firing) {
  const double warp = scalar_of(*rule.action.value, bind(state, target), "warp");
  if (warp < 0 || warp > 65535 || warp != std::floor(warp))
    throw EvalError("warp must be a warp number, got " + number_text(warp));
  auto& warps = state.plan.warps;
  const auto it = std::find_if(warps.begin(), warps.end(), [&](const WarpOverride& w) { return w.op == rule.action.name; });
  const std::string before = it == warps.end() ? "as split" : std::to_string(it->warp);
  if (it == warps.end())
    warps.push_back({rule.action.name, static_cast<int>(warp)});
  else
    it->warp = static_cast<int>(warp);
  firing.change = "warp of '" + rule.action.name + "' " + before + " -> " + number_text(warp);
  firing.not_predicted = "no model of warp balance: the next run measures it";
}

void fuse(State& state, const Rule& rule, const Target&, Firing& firing) {
  const auto [first, length] = consecutive_foralls(state.plan);
  if (length < rule.action.count)
    throw EvalError("no run of " + std::to_string(rule.action.count) +
                    " consecutive foralls on one map (the longest has " + std::to_string(length) + ")");
  state.plan.fusions.push_back({first, rule.action.count});
  firing.change = "fuse steps " + std::to_string(first) + ".." + std::to_string(first + rule.action.count - 1) +
                  " (map '" + state.plan.steps[static_cast<std::size_t>(first)].map + "')";
  firing.predicted = Prediction{"compute supersteps of the fused steps", static_cast<double>(rule.action.count), 1};
}

// Without a step: the first forall that writes several fields and is not split yet; without
// parts: as many as it can be split into (one per statement that writes).
void split(State& state, const Rule& rule, const Target&, Firing& firing) {
  int step = rule.action.step;
  if (step < 0) {
    const std::vector<int> candidates = splittable_steps(state.plan);
    if (candidates.empty())
      throw EvalError("no forall whose body writes several fields is left to split");
    step = candidates.front();
  }
  if (step >= static_cast<int>(state.plan.steps.size()))
    throw EvalError("no step " + std::to_string(step) + " (the plan has " +
                    std::to_string(state.plan.steps.size()) + ")");
  const int most = state.plan.steps[static_cast<std::size_t>(step)].max_parts;
  const int parts = rule.action.count > 0 ? rule.action.count : most;
  if (parts < 2 || (most > 1 && parts > most))
    throw EvalError("step " + std::to_string(step) + " splits into at most " + std::to_string(most) +
                    " parts, the rule asks for " + std::to_string(parts));
  auto& splits = state.plan.splits;
  std::erase_if(splits, [&](const SplitDecision& s) { return s.step == step; });
  splits.push_back({step, parts});
  firing.change = "split step " + std::to_string(step) + " into " + std::to_string(parts) + " foralls";
  firing.predicted = Prediction{"supersteps of step " + std::to_string(step), 1, static_cast<double>(parts)};
}

// The variant after `op`'s current choice in its declared group, or "" at the group's end.
std::string next_variant(const KernelPlan& plan, const std::string& op) {
  const std::vector<std::string>* group = variant_group(plan, op);
  if (!group)
    return "";
  const auto at = std::find(group->begin(), group->end(), chosen_variant(plan, op));
  return at == group->end() || at + 1 == group->end() ? "" : *(at + 1);
}

// Without an op: the first declared group (by its first member, what the kernel calls) whose
// choice has a next variant.
void substitute(State& state, const Rule& rule, const Target&, Firing& firing) {
  std::string op = rule.action.name;
  if (op.empty()) {
    for (const auto& group : state.plan.variant_groups)
      if (!group.empty() && !next_variant(state.plan, group.front()).empty()) {
        op = group.front();
        break;
      }
    if (op.empty())
      throw EvalError("no S2P_VARIANTS group has a variant after its current choice");
  }
  std::string variant = rule.action.variant;
  if (variant == "next") {
    variant = next_variant(state.plan, op);
    if (variant.empty())
      throw EvalError("'" + op + "' has no variant after '" + chosen_variant(state.plan, op) + "'");
  }
  const std::vector<std::string>* group = variant_group(state.plan, op);
  if (group && std::find(group->begin(), group->end(), variant) == group->end())
    throw EvalError("'" + variant + "' is not a variant of '" + op + "'");
  const std::string before = chosen_variant(state.plan, op);
  auto& variants = state.plan.variants;
  std::erase_if(variants, [&](const VariantChoice& v) { return v.op == op; });
  if (variant != op)
    variants.push_back({op, variant});
  firing.change = "'" + op + "' runs as variant '" + variant + "' (was '" + before + "')";
  firing.not_predicted = "variants carry no cost model: the next run measures it";
}

void set_variable(State& state, const Rule& rule, const Target& target, Firing& firing) {
  const double value = scalar_of(*rule.action.value, bind(state, target), "value");
  const std::string name = rule.action.name.substr(4);
  const auto it = state.plan.variables.find(name);
  firing.change = rule.action.name + " " + (it == state.plan.variables.end() ? "unset" : number_text(it->second)) +
                  " -> " + number_text(value);
  firing.not_predicted = "a rule variable: it changes which rules fire";
  state.plan.variables[name] = value;
}

} // namespace

namespace {

std::vector<Rule>::iterator find_rule(State& state, const std::string& name) {
  return std::find_if(state.rules.rules.begin(), state.rules.rules.end(),
                      [&](const Rule& r) { return r.name == name; });
}

void add_rule(State& state, const Rule& rule, const Target&, Firing& firing) {
  const Rule& added = *rule.action.rule;
  if (find_rule(state, added.name) != state.rules.rules.end())
    throw EvalError("a rule named '" + added.name + "' exists");
  if (state.rules.rules.size() >= state.options.max_rules)
    throw EvalError("the rule set has " + std::to_string(state.rules.rules.size()) + " rules, the most allowed");
  state.rules.rules.push_back(added);
  firing.change = "add rule '" + added.name + "' (priority " + std::to_string(added.priority) + ")";
  firing.not_predicted = "changes the rule set";
}

void revoke_rule(State& state, const Rule& rule, const Target&, Firing& firing) {
  const auto it = find_rule(state, rule.action.name);
  if (it == state.rules.rules.end())
    throw EvalError("no rule named '" + rule.action.name + "'");
  state.rules.rules.erase(it);
  firing.change = "revoke rule '" + rule.action.name + "'";
  firing.not_predicted = "changes the rule set";
}

void change_rule(State& state, const Rule& rule, const Target&, Firing& firing) {
  const auto it = find_rule(state, rule.action.name);
  if (it == state.rules.rules.end())
    throw EvalError("no rule named '" + rule.action.name + "'");
  const Rule& change = *rule.action.rule;
  if (!change.when.text().empty()) {
    for (const auto& name : change.when.variables())
      if (!is_variable(name, it->scope))
        throw EvalError("'" + name + "' is not a variable of a rule for_each " + to_string(it->scope));
    firing.change = "rule '" + it->name + "' when \"" + it->when.text() + "\" -> \"" + change.when.text() + "\"";
    it->when = change.when;
  }
  if (rule.action.new_priority) {
    firing.change += (firing.change.empty() ? "rule '" + it->name + "' " : ", ") + std::string("priority ") +
                     std::to_string(it->priority) + " -> " + std::to_string(*rule.action.new_priority);
    it->priority = *rule.action.new_priority;
  }
  firing.not_predicted = "changes the rule set";
}

void perform(State& state, const Rule& rule, const Target& target, Firing& firing) {
  using Perform = void (*)(State&, const Rule&, const Target&, Firing&);
  static const std::pair<ActionKind, Perform> kActions[] = {
      {ActionKind::Rebalance, rebalance},     {ActionKind::Repartition, repartition},
      {ActionKind::SetRingDepth, set_ring_depth}, {ActionKind::SetWarp, set_warp},
      {ActionKind::Fuse, fuse},               {ActionKind::Split, split},
      {ActionKind::Substitute, substitute},   {ActionKind::SetVariable, set_variable},
      {ActionKind::AddRule, add_rule},        {ActionKind::RevokeRule, revoke_rule},
      {ActionKind::ChangeRule, change_rule}};
  for (const auto& [kind, action] : kActions)
    if (kind == rule.action.kind)
      return action(state, rule, target, firing);
}

Firing firing_of(const Rule& rule, const Target& target, const Bindings& b, int pass) {
  Firing firing;
  firing.pass = pass;
  firing.rule = rule.name;
  firing.origin = rule.origin;
  firing.priority = rule.priority;
  firing.target = target.label;
  firing.predicate = rule.when.text();
  firing.action = rule.action.kind;
  for (const auto& name : rule.when.variables()) {
    try {
      firing.values.emplace_back(name, to_string(lookup(b, name)));
    } catch (const EvalError& error) {
      firing.values.emplace_back(name, std::string("(") + error.what() + ")");
    }
  }
  return firing;
}

// Evaluates one rule on one target and fires it; returns whether it fired. `done` holds the
// (rule, target) pairs that fired or failed this round.
bool evaluate_rule(State& state, const Rule& rule, const Target& target, int pass, Trace& trace,
                   std::set<std::pair<std::string, std::string>>& done) {
  const auto key = std::make_pair(rule.name, target.label);
  if (done.contains(key))
    return false;
  try {
    const Bindings b = bind(state, target);
    const Value holds = evaluate(rule.when, b);
    if (holds.array)
      throw EvalError("the predicate is an array " + to_string(holds) + ", not true or false");
    if (holds.scalar() == 0)
      return false;
    Firing firing = firing_of(rule, target, b, pass);
    done.insert(key);
    perform(state, rule, target, firing);
    trace.fired.push_back(std::move(firing));
    return true;
  } catch (const EvalError& error) {
    done.insert(key);
    trace.errors.push_back({pass, rule.name, target.label, error.what()});
    return false;
  }
}

bool run_pass(State& state, int pass, Trace& trace, std::set<std::pair<std::string, std::string>>& done) {
  bool fired = false;
  const RuleSet snapshot = state.rules; // the order of this pass; revoked rules are skipped
  for (const std::size_t i : evaluation_order(snapshot)) {
    const Rule& rule = snapshot.rules[i];
    const auto live = std::find_if(state.rules.rules.begin(), state.rules.rules.end(),
                                   [&](const Rule& r) { return r.name == rule.name; });
    if (live == state.rules.rules.end())
      continue;
    // As changed by change_rule earlier in this pass. A copy: evaluating it may add, revoke or
    // change rules, which moves state.rules' elements.
    const Rule current = *live; // NOLINT(performance-unnecessary-copy-initialization)
    for (const Target& target : targets_of(current.scope, state.plan))
      fired = evaluate_rule(state, current, target, pass, trace, done) || fired;
  }
  return fired;
}

} // namespace

std::vector<std::size_t> evaluation_order(const RuleSet& rules) {
  std::vector<std::size_t> order(rules.rules.size());
  std::iota(order.begin(), order.end(), 0);
  // Priority, then position: a total order, so the sort is deterministic without being stable.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int pa = rules.rules[a].priority, pb = rules.rules[b].priority;
    return pa != pb ? pa > pb : a < b;
  });
  return order;
}

ApplyResult apply_rules(const KernelPlan& plan, const RuleSet& rules, const Feedback& feedback,
                        const ApplyOptions& options) {
  State state{plan, rules, feedback, options};
  Trace trace;
  std::set<std::pair<std::string, std::string>> done;
  for (int pass = 1; pass <= options.max_passes; ++pass) {
    trace.passes = pass;
    const bool fired = run_pass(state, pass, trace, done);
    if (!fired)
      break;
    trace.stopped_at_bound = pass == options.max_passes;
  }
  return {std::move(state.plan), std::move(state.rules), std::move(trace)};
}

std::string explain(const Trace& trace) {
  std::string out;
  for (const Firing& f : trace.fired) {
    out += "pass " + std::to_string(f.pass) + ": rule '" + f.rule + "' (" + f.origin + ", priority " +
           std::to_string(f.priority) + ") fired on " + f.target + "\n";
    out += "  when " + f.predicate + "\n";
    for (const auto& [name, value] : f.values)
      out += "    " + name + " = " + value + "\n";
    out += "  " + std::string(to_string(f.action)) + ": " + f.change + "\n";
    if (f.predicted)
      out += "  predicted: " + f.predicted->quantity + " " + number_text(f.predicted->before) + " -> " +
             number_text(f.predicted->after) + "\n";
    else
      out += "  predicted: nothing (" + f.not_predicted + ")\n";
  }
  for (const RuleError& e : trace.errors)
    out += "pass " + std::to_string(e.pass) + ": rule '" + e.rule + "' on " + e.target +
           " not applied: " + e.error + "\n";
  out += trace.fired.empty() ? "no rule fired" : std::to_string(trace.fired.size()) + " rule firing(s)";
  out += ", " + std::to_string(trace.passes) + " pass(es)";
  out += trace.stopped_at_bound ? ", stopped at the chaining bound\n" : "\n";
  return out;
}

nlohmann::ordered_json to_json(const Trace& trace) {
  nlohmann::ordered_json fired = nlohmann::ordered_json::array();
  for (const Firing& f : trace.fired) {
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (const auto& [name, value] : f.values)
      values[name] = value;
    nlohmann::ordered_json item{{"pass", f.pass}, {"rule", f.rule}, {"origin", f.origin},
                                {"priority", f.priority}, {"target", f.target}, {"when", f.predicate},
                                {"values", values}, {"action", to_string(f.action)}, {"change", f.change}};
    if (f.predicted)
      item["predicted"] = {{"quantity", f.predicted->quantity}, {"before", f.predicted->before},
                           {"after", f.predicted->after}};
    else
      item["not_predicted"] = f.not_predicted;
    fired.push_back(std::move(item));
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const RuleError& e : trace.errors)
    errors.push_back({{"pass", e.pass}, {"rule", e.rule}, {"target", e.target}, {"error", e.error}});
  return {{"fired", fired}, {"errors", errors}, {"passes", trace.passes},
          {"stopped_at_bound", trace.stopped_at_bound}};
}

std::vector<double> normalized_weights(std::vector<double> weights) {
  const double smallest = *std::min_element(weights.begin(), weights.end());
  for (double& w : weights)
    w = std::round(w / smallest * 1000.0) / 1000.0;
  return weights;
}

std::string number_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

} // namespace s2p::tuning
