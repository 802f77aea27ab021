#include "tuning/variables.h"

#include <algorithm>
#include <functional>

namespace s2p::tuning {

namespace {

using Getter = std::function<Value(const Bindings&)>;

Value array_of(const std::vector<double>& xs) {
  return Value::list(xs);
}

Value array_of(const std::vector<int>& xs) {
  return Value::list(std::vector<double>(xs.begin(), xs.end()));
}

// Variables every scope reads, with their getters.
const std::map<std::string, Getter, std::less<>>& common_variables() {
  static const std::map<std::string, Getter, std::less<>> table = {
      {"tile.busy", [](const Bindings& b) { return array_of(b.feedback.busy); }},
      {"tile.idle", [](const Bindings& b) { return array_of(b.feedback.idle); }},
      {"tile.compute", [](const Bindings& b) { return array_of(b.feedback.compute); }},
      {"tile.exchange", [](const Bindings& b) { return array_of(b.feedback.exchange); }},
      {"tile.peak_memory", [](const Bindings& b) { return array_of(b.feedback.peak_memory); }},
      {"tile.free_memory", [](const Bindings& b) { return array_of(b.feedback.free_memory); }},
      {"tile.bytes_in", [](const Bindings& b) { return array_of(b.feedback.bytes_in); }},
      {"tile.bytes_out", [](const Bindings& b) { return array_of(b.feedback.bytes_out); }},
      {"run.total_cycles", [](const Bindings& b) { return Value::number(b.feedback.total_cycles); }},
      {"run.compute_cycles", [](const Bindings& b) { return Value::number(b.feedback.compute_cycles); }},
      {"run.exchange_cycles", [](const Bindings& b) { return Value::number(b.feedback.exchange_cycles); }},
      {"run.sync_cycles", [](const Bindings& b) { return Value::number(b.feedback.sync_cycles); }},
      {"run.exchange_compute_ratio",
       [](const Bindings& b) {
         if (b.feedback.compute_cycles == 0)
           throw EvalError("run.exchange_compute_ratio: the run computed nothing");
         return Value::number(b.feedback.exchange_cycles / b.feedback.compute_cycles);
       }},
      {"fabric.tiles", [](const Bindings& b) { return Value::number(b.feedback.tiles); }},
      {"fabric.chips", [](const Bindings& b) { return Value::number(b.feedback.chips); }},
      {"fabric.tiles_per_chip", [](const Bindings& b) { return Value::number(b.feedback.tiles_per_chip); }},
      {"fabric.sram_bytes", [](const Bindings& b) { return Value::number(b.feedback.sram_bytes); }},
      {"fabric.failed_tiles", [](const Bindings& b) { return array_of(b.feedback.failed_tiles); }},
      {"warp.bubble", [](const Bindings& b) { return array_of(b.feedback.warp_bubble); }},
      {"plan.tiles", [](const Bindings& b) { return Value::number(b.plan.tiles); }},
      {"plan.steps", [](const Bindings& b) { return Value::number(static_cast<double>(b.plan.steps.size())); }},
      {"plan.fusions", [](const Bindings& b) { return Value::number(static_cast<double>(b.plan.fusions.size())); }},
      {"plan.splittable_steps",
       [](const Bindings& b) { return Value::number(static_cast<double>(splittable_steps(b.plan).size())); }},
      {"plan.variants_left",
       [](const Bindings& b) {
         double left = 0;
         for (const auto& group : b.plan.variant_groups) {
           if (group.empty())
             continue;
           const auto at = std::find(group.begin(), group.end(), chosen_variant(b.plan, group.front()));
           left += at != group.end() && at + 1 != group.end() ? 1 : 0;
         }
         return Value::number(left);
       }},
      {"plan.consecutive_foralls",
       [](const Bindings& b) { return Value::number(consecutive_foralls(b.plan).second); }},
  };
  return table;
}

// A per-tile measurement at the map's tiles.
Value at_map_tiles(const MapPlan& map, const std::vector<double>& per_tile, std::string_view name) {
  std::vector<double> out;
  for (int t = 0; t < map.tiles; ++t) {
    const int tile = fabric_tile(map, t);
    if (tile < 0 || static_cast<std::size_t>(tile) >= per_tile.size())
      throw EvalError(std::string(name) + ": map '" + map.name + "' runs on tile " +
                      std::to_string(tile) + ", the report has " +
                      std::to_string(per_tile.size()) + " tiles");
    out.push_back(per_tile[static_cast<std::size_t>(tile)]);
  }
  return Value::list(std::move(out));
}

Value map_variable(const Bindings& b, std::string_view name) {
  const MapPlan& map = *b.map;
  if (name == "map.tiles")
    return Value::number(map.tiles);
  if (name == "map.weights")
    return map.weights.empty() ? Value::list(std::vector<double>(static_cast<std::size_t>(map.tiles), 1.0))
                               : Value::list(map.weights);
  std::vector<double> usable;
  for (int t = 0; t < map.tiles; ++t)
    usable.push_back(fabric_tile(map, t));
  if (name == "map.usable")
    return Value::list(usable);
  if (name == "map.busy")
    return at_map_tiles(map, b.feedback.busy, name);
  if (name == "map.idle")
    return at_map_tiles(map, b.feedback.idle, name);
  // map.failed
  const auto failed = [&](double t) {
    const auto& f = b.feedback.failed_tiles;
    const auto& p = b.plan.failed_tiles;
    const int tile = static_cast<int>(t);
    return std::find(f.begin(), f.end(), tile) != f.end() || std::find(p.begin(), p.end(), tile) != p.end();
  };
  return Value::number(static_cast<double>(std::count_if(usable.begin(), usable.end(), failed)));
}

constexpr std::string_view kMapVariables[] = {"map.tiles", "map.weights", "map.usable",
                                              "map.busy",  "map.idle",    "map.failed"};

bool prefixed_name(std::string_view name, std::string_view prefix) {
  return name.starts_with(prefix) && name.size() > prefix.size();
}

} // namespace

bool is_variable(std::string_view name, Scope scope) {
  if (common_variables().contains(name) || prefixed_name(name, "var.") || prefixed_name(name, "input."))
    return true;
  if (scope == Scope::Map)
    return std::find(std::begin(kMapVariables), std::end(kMapVariables), name) != std::end(kMapVariables);
  return scope == Scope::Pool && name == "pool.depth";
}

Value lookup(const Bindings& b, std::string_view name) {
  if (const auto it = common_variables().find(name); it != common_variables().end())
    return it->second(b);
  if (prefixed_name(name, "var.")) {
    const auto it = b.variables.find(std::string(name.substr(4)));
    return Value::number(it == b.variables.end() ? 0.0 : it->second);
  }
  if (prefixed_name(name, "input.")) {
    const auto it = b.feedback.inputs.find(std::string(name.substr(6)));
    return Value::number(it == b.feedback.inputs.end() ? 0.0 : it->second);
  }
  if (b.map && name.starts_with("map."))
    return map_variable(b, name);
  if (b.pool && name == "pool.depth")
    return Value::number(b.pool->ring_depth);
  throw EvalError("'" + std::string(name) + "' is not bound here");
}

std::vector<int> splittable_steps(const KernelPlan& plan) {
  std::vector<int> out;
  for (std::size_t k = 0; k < plan.steps.size(); ++k)
    if (plan.steps[k].max_parts > 1 &&
        std::none_of(plan.splits.begin(), plan.splits.end(),
                     [&](const SplitDecision& s) { return s.step == static_cast<int>(k); }))
      out.push_back(static_cast<int>(k));
  return out;
}

std::pair<int, int> consecutive_foralls(const KernelPlan& plan) {
  const auto& steps = plan.steps;
  const auto eligible = [&](std::size_t step) {
    const bool fused = std::any_of(plan.fusions.begin(), plan.fusions.end(), [&](const FusionDecision& f) {
      return static_cast<int>(step) >= f.first && static_cast<int>(step) < f.first + f.count;
    });
    // A forall whose map is unknown is not known to run on the same tiles as its neighbour.
    return steps[step].kind == ir::TileStep::Kind::Forall && !fused && !steps[step].map.empty();
  };
  std::pair<int, int> best{0, 0};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!eligible(i))
      continue;
    std::size_t j = i;
    // A step that fuses only with a later start (fuses_from, as --plan would refuse) ends the run.
    const auto joins = [&](std::size_t k) {
      return steps[k].fuses_from < 0 || steps[k].fuses_from <= static_cast<int>(i);
    };
    while (j + 1 < steps.size() && eligible(j + 1) && steps[j + 1].map == steps[i].map && joins(j + 1))
      ++j;
    if (static_cast<int>(j - i + 1) > best.second)
      best = {static_cast<int>(i), static_cast<int>(j - i + 1)};
  }
  return best;
}

} // namespace s2p::tuning
