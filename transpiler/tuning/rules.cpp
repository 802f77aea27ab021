#include "tuning/rules.h"

#include "tuning/json_fields.h"
#include "tuning/variables.h"

#include <algorithm>
#include <array>
#include <utility>

namespace s2p::tuning {

namespace {

constexpr std::int64_t kMaxPriority = 1000000;

constexpr std::array<std::pair<Scope, const char*>, 3> kScopes = {
    {{Scope::Kernel, "kernel"}, {Scope::Map, "map"}, {Scope::Pool, "pool"}}};

constexpr std::array<std::pair<ActionKind, const char*>, 11> kActions = {{
    {ActionKind::Rebalance, "rebalance"},
    {ActionKind::Repartition, "repartition"},
    {ActionKind::SetRingDepth, "set_ring_depth"},
    {ActionKind::SetWarp, "set_warp"},
    {ActionKind::Fuse, "fuse"},
    {ActionKind::Split, "split"},
    {ActionKind::Substitute, "substitute"},
    {ActionKind::SetVariable, "set_variable"},
    {ActionKind::AddRule, "add_rule"},
    {ActionKind::RevokeRule, "revoke_rule"},
    {ActionKind::ChangeRule, "change_rule"},
}};

// The scopes an action needs: rebalance and repartition act on a map, a ring depth on a pool.
std::optional<Scope> required_scope(ActionKind kind) {
  switch (kind) {
  case ActionKind::Rebalance:
  case ActionKind::Repartition:
    return Scope::Map;
  case ActionKind::SetRingDepth:
    return Scope::Pool;
  default:
    return std::nullopt;
  }
}

// `scope` nullopt: a predicate whose rule is only known when it is applied (change_rule), so
// any scope's variables are accepted here and the rule's own scope is checked then.
Expr read_expr(const Json& value, const std::string& field, std::optional<Scope> scope) {
  const std::string text = read_string(value, field);
  std::string error;
  const auto known = [scope](std::string_view name) {
    if (scope)
      return is_variable(name, *scope);
    return is_variable(name, Scope::Map) || is_variable(name, Scope::Pool);
  };
  auto expr = Expr::parse(text, known, error);
  if (!expr)
    throw FieldError(field, error);
  return std::move(*expr);
}

Rule read_rule(const Json& json, const std::string& path, const std::string& origin);

// The parameters of one action kind; every other field is refused by finish().
void read_action_parameters(ObjectReader& reader, Action& action, Scope scope,
                            const std::string& path, const std::string& origin) {
  const auto expr = [&](std::string_view key) { return read_expr(reader.require(key), reader.field(key), scope); };
  switch (action.kind) {
  case ActionKind::Rebalance: action.value = expr("weights"); break;
  case ActionKind::Repartition:
    if (const Json* tiles = reader.find("tiles"))
      action.value = read_expr(*tiles, reader.field("tiles"), scope);
    break;
  case ActionKind::SetRingDepth:
    action.value = expr("depth");
    action.count = static_cast<int>(reader.int_or("max", 16, 1, 1 << 16));
    break;
  case ActionKind::SetWarp:
    action.name = reader.required_string("op");
    action.value = expr("warp");
    break;
  case ActionKind::Fuse: action.count = static_cast<int>(reader.int_or("count", 3, 2, 1 << 20)); break;
  case ActionKind::Split:
    // Both optional: the first step that can be split and is not, into as many parts as it can.
    action.step = static_cast<int>(reader.int_or("step", -1, 0, 1 << 20));
    action.count = static_cast<int>(reader.int_or("parts", 0, 2, 1 << 16));
    break;
  case ActionKind::Substitute:
    // Both optional: the first declared group whose choice has a next variant, and "next".
    action.name = reader.string_or("op", "");
    action.variant = reader.string_or("variant", "next");
    break;
  case ActionKind::SetVariable: {
    action.name = reader.required_string("variable");
    if (!action.name.starts_with("var.") || action.name.size() == 4)
      throw FieldError(reader.field("variable"), "a rule variable is named var.<name>, got \"" + action.name + "\"");
    action.value = expr("value");
    break;
  }
  case ActionKind::AddRule:
    action.rule = std::make_shared<const Rule>(read_rule(reader.require("rule"), reader.field("rule"), origin));
    break;
  case ActionKind::RevokeRule: action.name = reader.required_string("rule"); break;
  case ActionKind::ChangeRule: {
    action.name = reader.required_string("rule");
    Rule change;
    change.name = action.name;
    if (const Json* when = reader.find("when"))
      change.when = read_expr(*when, reader.field("when"), std::nullopt);
    if (const Json* priority = reader.find("priority"))
      action.new_priority = static_cast<int>(read_int(*priority, reader.field("priority"), -kMaxPriority, kMaxPriority));
    if (change.when.text().empty() && !action.new_priority)
      throw FieldError(path, "change_rule changes nothing: give 'when' and/or 'priority'");
    action.rule = std::make_shared<const Rule>(std::move(change));
    break;
  }
  }
}

Action read_action(const Json& json, const std::string& path, Scope scope, const std::string& origin) {
  ObjectReader reader(json, path);
  Action action;
  const std::string kind = reader.required_string("kind");
  const auto parsed = parse_action_kind(kind);
  if (!parsed)
    throw FieldError(reader.field("kind"), "unknown action \"" + kind + "\"");
  action.kind = *parsed;
  if (const auto needed = required_scope(action.kind); needed && *needed != scope)
    throw FieldError(reader.field("kind"), std::string(kind) + " acts on a " + to_string(*needed) +
                                               ": the rule needs \"for_each\": \"" + to_string(*needed) + "\"");
  read_action_parameters(reader, action, scope, path, origin);
  reader.finish();
  return action;
}

Rule read_rule_fields(const Json& json, const std::string& path, const std::string& origin) {
  ObjectReader reader(json, path);
  Rule rule;
  rule.origin = origin;
  rule.name = reader.required_string("name");
  if (rule.name.empty())
    throw FieldError(reader.field("name"), "a rule needs a name");
  rule.priority = static_cast<int>(reader.int_or("priority", 0, -kMaxPriority, kMaxPriority));
  const std::string scope = reader.string_or("for_each", "kernel");
  const auto parsed = parse_scope(scope);
  if (!parsed)
    throw FieldError(reader.field("for_each"), "expected \"kernel\", \"map\" or \"pool\", got \"" + scope + "\"");
  rule.scope = *parsed;
  rule.when = read_expr(reader.require("when"), reader.field("when"), rule.scope);
  rule.action = read_action(reader.require("action"), reader.field("action"), rule.scope, origin);
  reader.finish();
  return rule;
}

// A rule's errors name the rule when it has a readable name: "rule 'x' (rules[2]): field ...";
// a rule nested in add_rule is named after the rule that adds it.
Rule read_rule(const Json& json, const std::string& path, const std::string& origin) {
  try {
    return read_rule_fields(json, path, origin);
  } catch (const FieldError& error) {
    const bool named = json.is_object() && json.contains("name") && json["name"].is_string();
    const std::string who = named ? "rule '" + json["name"].get<std::string>() + "' (" + path + ")"
                                  : "rule " + path;
    throw FieldError(error.field(), who + ": " + error.what(), true);
  }
}

RuleSet read_rules(const Json& json, const std::string& origin) {
  ObjectReader reader(json, "");
  const std::string format = reader.required_string("format");
  if (format != kRulesFormat)
    throw FieldError("format", "expected \"" + std::string(kRulesFormat) + "\", got \"" + format + "\"");
  RuleSet set;
  const Json& rules = read_array(reader.require("rules"), "rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    set.rules.push_back(read_rule(rules[i], index_field("rules", i), origin));
    for (std::size_t j = 0; j + 1 < set.rules.size(); ++j)
      if (set.rules[j].name == set.rules.back().name)
        throw FieldError(index_field("rules", i) + ".name",
                         "rule '" + set.rules.back().name + "' (" + index_field("rules", i) +
                             "): field '" + index_field("rules", i) + ".name': the name is taken by rules[" +
                             std::to_string(j) + "]", true);
  }
  reader.finish();
  return set;
}

Json action_json(const Action& action) {
  Json json{{"kind", to_string(action.kind)}};
  const auto value = [&] { return action.value ? action.value->text() : std::string(); };
  switch (action.kind) {
  case ActionKind::Rebalance: json["weights"] = value(); break;
  case ActionKind::Repartition:
    if (action.value)
      json["tiles"] = value();
    break;
  case ActionKind::SetRingDepth: json["depth"] = value(); json["max"] = action.count; break;
  case ActionKind::SetWarp: json["op"] = action.name; json["warp"] = value(); break;
  case ActionKind::Fuse: json["count"] = action.count; break;
  case ActionKind::Split:
    if (action.step >= 0)
      json["step"] = action.step;
    if (action.count > 0)
      json["parts"] = action.count;
    break;
  case ActionKind::Substitute:
    if (!action.name.empty())
      json["op"] = action.name;
    json["variant"] = action.variant;
    break;
  case ActionKind::SetVariable: json["variable"] = action.name; json["value"] = value(); break;
  case ActionKind::AddRule: json["rule"] = to_json(*action.rule); break;
  case ActionKind::RevokeRule: json["rule"] = action.name; break;
  case ActionKind::ChangeRule:
    json["rule"] = action.name;
    if (!action.rule->when.text().empty())
      json["when"] = action.rule->when.text();
    if (action.new_priority)
      json["priority"] = *action.new_priority;
    break;
  }
  return json;
}

} // namespace

const char* to_string(Scope scope) {
  for (const auto& [s, name] : kScopes)
    if (s == scope)
      return name;
  return "?";
}

std::optional<Scope> parse_scope(std::string_view name) {
  for (const auto& [s, spelling] : kScopes)
    if (name == spelling)
      return s;
  return std::nullopt;
}

const char* to_string(ActionKind kind) {
  for (const auto& [k, name] : kActions)
    if (k == kind)
      return name;
  return "?";
}

std::optional<ActionKind> parse_action_kind(std::string_view name) {
  for (const auto& [k, spelling] : kActions)
    if (name == spelling)
      return k;
  return std::nullopt;
}

nlohmann::ordered_json to_json(const Rule& rule) {
  return {{"name", rule.name},
          {"priority", rule.priority},
          {"for_each", to_string(rule.scope)},
          {"when", rule.when.text()},
          {"action", action_json(rule.action)}};
}

nlohmann::ordered_json to_json(const RuleSet& rules) {
  Json json{{"format", kRulesFormat}, {"rules", Json::array()}};
  for (const auto& rule : rules.rules)
    json["rules"].push_back(to_json(rule));
  return json;
}

std::optional<RuleSet> rules_from_json(const nlohmann::ordered_json& json, const std::string& source,
                                       ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_rules(json, source); });
}

std::optional<RuleSet> rules_from_text(std::string_view text, const std::string& source,
                                       ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_rules(parse_json_text(text), source); });
}

RuleSet merge(RuleSet base, const RuleSet& extra) {
  for (const auto& rule : extra.rules) {
    const auto same = std::find_if(base.rules.begin(), base.rules.end(),
                                   [&](const Rule& r) { return r.name == rule.name; });
    if (same != base.rules.end())
      *same = rule;
    else
      base.rules.push_back(rule);
  }
  return base;
}

} // namespace s2p::tuning
