#include "tuning/plan.h"

#include "pass_manager/fuse_foralls.h"
#include "pass_manager/split_foralls.h"
#include "tuning/json_fields.h"

#include <algorithm>

namespace s2p::tuning {

namespace {

constexpr std::int64_t kMaxTiles = 1 << 20;
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;

// The weights a map is built with: the last .weights() refinement wins, as in the runtime.
std::vector<double> weights_of(const ir::MapSpec& spec) {
  std::vector<double> weights;
  for (const auto& refinement : spec.refinements)
    if (refinement.method == ir::MapSpec::Refinement::Method::Weights)
      weights = refinement.weights;
  return weights;
}

Json map_json(const MapPlan& map) {
  Json json;
  json["name"] = map.name;
  if (!map.at.empty())
    json["at"] = map.at;
  json["protocol"] = ir::to_string(map.protocol);
  json["columns"] = map.columns;
  json["block"] = map.block;
  json["tiles"] = map.tiles;
  json["weights"] = map.weights;
  json["usable_tiles"] = map.usable_tiles;
  return json;
}

MapPlan read_map(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  MapPlan map;
  map.name = reader.required_string("name");
  map.at = reader.string_or("at", "");
  const std::string protocol = reader.required_string("protocol");
  const auto parsed = ir::parse_map_protocol(protocol);
  if (!parsed)
    throw FieldError(reader.field("protocol"), "unknown protocol \"" + protocol +
                                                   "\" (block, cyclic, block_block, "
                                                   "block_cyclic, split_points)");
  map.protocol = *parsed;
  map.columns = reader.bool_or("columns", false);
  map.block = reader.int_array_or("block", 1, kMaxExtent);
  map.tiles = static_cast<int>(reader.required_int("tiles", 1, kMaxTiles));
  map.weights = reader.positive_array_or("weights");
  if (!map.weights.empty() && map.weights.size() != static_cast<std::size_t>(map.tiles))
    throw FieldError(reader.field("weights"), std::to_string(map.weights.size()) +
                                                  " weights for " + std::to_string(map.tiles) +
                                                  " tiles");
  for (const auto t : reader.int_array_or("usable_tiles", 0, kMaxTiles - 1))
    map.usable_tiles.push_back(static_cast<int>(t));
  if (!map.usable_tiles.empty() && map.usable_tiles.size() != static_cast<std::size_t>(map.tiles))
    throw FieldError(reader.field("usable_tiles"),
                     std::to_string(map.usable_tiles.size()) + " tiles listed, the map has " +
                         std::to_string(map.tiles));
  reader.finish();
  return map;
}

template <typename T, typename Read>
std::vector<T> read_list(ObjectReader& reader, std::string_view key, Read read) {
  std::vector<T> out;
  if (const Json* value = reader.find(key)) {
    const Json& array = read_array(*value, reader.field(key));
    for (std::size_t i = 0; i < array.size(); ++i)
      out.push_back(read(array[i], index_field(reader.field(key), i)));
  }
  return out;
}

StepPlan read_step(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  StepPlan step;
  const std::string kind = reader.required_string("kind");
  const auto parsed = parse_step_kind(kind);
  if (!parsed)
    throw FieldError(reader.field("kind"), "unknown step kind \"" + kind + "\"");
  step.kind = *parsed;
  step.map = reader.string_or("map", "");
  if (reader.find("fuses_from"))
    step.fuses_from = static_cast<int>(reader.required_int("fuses_from", 0, 1 << 20));
  step.max_parts = static_cast<int>(reader.int_or("max_parts", 1, 1, 1 << 16));
  reader.finish();
  return step;
}

PoolPlan read_pool(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  PoolPlan pool;
  pool.name = reader.required_string("name");
  pool.ring_depth = static_cast<int>(reader.required_int("ring_depth", 1, 1 << 16));
  pool.tunable = reader.string_or("tunable", "");
  reader.finish();
  return pool;
}

constexpr std::int64_t kMaxTunable = std::int64_t{1} << 40;

TunablePlan read_tunable(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  TunablePlan tunable;
  tunable.value = reader.required_int("value", -kMaxTunable, kMaxTunable);
  if (reader.find("min"))
    tunable.min = reader.required_int("min", -kMaxTunable, kMaxTunable);
  if (reader.find("max"))
    tunable.max = reader.required_int("max", -kMaxTunable, kMaxTunable);
  reader.finish();
  if ((tunable.min && tunable.value < *tunable.min) || (tunable.max && tunable.value > *tunable.max))
    throw FieldError(path + ".value", std::to_string(tunable.value) + " is outside [min, max]");
  return tunable;
}

WarpOverride read_warp(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  WarpOverride warp{reader.required_string("op"), static_cast<int>(reader.required_int("warp", 0, 1 << 16))};
  reader.finish();
  return warp;
}

FusionDecision read_fusion(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  FusionDecision fusion{static_cast<int>(reader.required_int("first", 0, 1 << 20)),
                        static_cast<int>(reader.required_int("count", 2, 1 << 20))};
  reader.finish();
  return fusion;
}

SplitDecision read_split(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  SplitDecision split{static_cast<int>(reader.required_int("step", 0, 1 << 20)),
                      static_cast<int>(reader.required_int("parts", 2, 1 << 16))};
  reader.finish();
  return split;
}

VariantChoice read_variant(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  VariantChoice variant{reader.required_string("op"), reader.required_string("variant")};
  reader.finish();
  return variant;
}

// Step references (fusions, splits) must name steps the plan has; maps' names are unique.
void check_references(const KernelPlan& plan) {
  const int steps = static_cast<int>(plan.steps.size());
  for (std::size_t i = 0; i < plan.fusions.size(); ++i)
    if (plan.fusions[i].first + plan.fusions[i].count > steps)
      throw FieldError(index_field("fusions", i), "fuses steps past the last (" +
                                                      std::to_string(steps) + " steps)");
  for (std::size_t i = 0; i < plan.splits.size(); ++i) {
    const SplitDecision& split = plan.splits[i];
    if (split.step >= steps)
      throw FieldError(index_field("splits", i) + ".step", "no such step (" +
                                                               std::to_string(steps) + " steps)");
    const int most = plan.steps[static_cast<std::size_t>(split.step)].max_parts;
    if (most > 1 && split.parts > most)
      throw FieldError(index_field("splits", i) + ".parts",
                       std::to_string(split.parts) + " parts, step " + std::to_string(split.step) +
                           " splits into at most " + std::to_string(most));
  }
  for (std::size_t i = 0; i < plan.maps.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (plan.maps[i].name == plan.maps[j].name)
        throw FieldError(index_field("maps", i) + ".name", "map '" + plan.maps[i].name +
                                                               "' is listed twice");
}

KernelPlan read_plan(const Json& json) {
  ObjectReader reader(json, "");
  const std::string format = reader.required_string("format");
  if (format != kPlanFormat)
    throw FieldError("format", "expected \"" + std::string(kPlanFormat) + "\", got \"" + format + "\"");
  KernelPlan plan;
  plan.kernel = reader.required_string("kernel");
  plan.source = reader.string_or("source", "");
  plan.tiles = static_cast<int>(reader.required_int("tiles", 1, kMaxTiles));
  for (const auto t : reader.int_array_or("failed_tiles", 0, kMaxTiles - 1))
    plan.failed_tiles.push_back(static_cast<int>(t));
  plan.steps = read_list<StepPlan>(reader, "steps", read_step);
  plan.maps = read_list<MapPlan>(reader, "maps", read_map);
  plan.pools = read_list<PoolPlan>(reader, "pools", read_pool);
  if (const Json* tunables = reader.find("tunables")) {
    if (!tunables->is_object())
      throw FieldError("tunables", "expected an object (name -> {\"value\": ...})");
    for (const auto& [name, value] : tunables->items())
      plan.tunables[name] = read_tunable(value, "tunables." + name);
  }
  plan.warps = read_list<WarpOverride>(reader, "warps", read_warp);
  plan.fusions = read_list<FusionDecision>(reader, "fusions", read_fusion);
  plan.splits = read_list<SplitDecision>(reader, "splits", read_split);
  plan.variants = read_list<VariantChoice>(reader, "variants", read_variant);
  if (const Json* groups = reader.find("variant_groups")) {
    const Json& array = read_array(*groups, "variant_groups");
    for (std::size_t i = 0; i < array.size(); ++i) {
      const Json& names = read_array(array[i], index_field("variant_groups", i));
      plan.variant_groups.emplace_back();
      for (std::size_t j = 0; j < names.size(); ++j) {
        if (!names[j].is_string())
          throw FieldError(index_field(index_field("variant_groups", i), j), "expected a string");
        plan.variant_groups.back().push_back(names[j].get<std::string>());
      }
    }
  }
  if (const Json* variables = reader.find("variables")) {
    ObjectReader vars(*variables, "variables");
    for (const auto& [name, value] : variables->items())
      plan.variables[name] = vars.number_or(name, 0);
  }
  reader.finish();
  check_references(plan);
  return plan;
}

// Pools as plan entries: a pool whose slot count is a tunable has that tunable's value as its
// depth, and the tunable goes into the plan's tunables; others have depth 1 (`tunable_only`:
// left out).
void add_pools(const std::vector<ir::Pool>& pools, KernelPlan& plan, bool tunable_only = false) {
  for (const auto& pool : pools) {
    if (!pool.depth) {
      if (!tunable_only)
        plan.pools.push_back({pool.name, 1, ""});
      continue;
    }
    const auto depth = static_cast<int>(std::clamp<std::int64_t>(pool.depth->value, 1, 1 << 16));
    plan.pools.push_back({pool.name, depth, pool.depth->name});
    plan.tunables[pool.depth->name] = {pool.depth->value, pool.depth->min, pool.depth->max};
  }
}

// The first step step `k` fuses with (pass_manager/fuse_foralls.h): a run that fuses holds only runs
// that fuse, so the first one that fuses up to k is where every longer one starts.
int fuses_from(const ir::MultiTile& multi, std::size_t k) {
  const int step = static_cast<int>(k);
  int first = step;
  while (first > 0 && pass_manager::can_fuse(multi, first - 1, step - first + 2))
    --first;
  return first;
}

} // namespace

std::optional<ir::TileStep::Kind> parse_step_kind(std::string_view name) {
  using Kind = ir::TileStep::Kind;
  for (const auto kind : {Kind::AllReduce, Kind::ReduceScatter, Kind::AllGather, Kind::Forall})
    if (name == ir::library_name(kind))
      return kind;
  return std::nullopt;
}

KernelPlan plan_from_kernel(const ir::Kernel& kernel) {
  KernelPlan plan;
  plan.kernel = kernel.name;
  plan.source = kernel.loc.file;
  for (const auto& group : kernel.variants) {
    plan.variant_groups.emplace_back();
    for (const auto& member : group.members)
      plan.variant_groups.back().push_back(member.name);
  }
  add_pools(kernel.pools, plan);
  if (!kernel.multi_tile)
    return plan;
  for (const auto& step : kernel.multi_tile->steps)
    if (step.task) // a forall's task: only its tunable pools, the ones a plan can deepen
      add_pools(step.task->pools, plan, true);
  plan.tiles = kernel.multi_tile->tiles;
  for (const auto& [name, spec] : kernel.multi_tile->maps)
    plan.maps.push_back({name, "", spec.protocol, spec.columns, spec.segment, spec.tiles,
                         weights_of(spec), {}});
  for (const auto& step : kernel.multi_tile->steps) {
    std::string map;
    if (step.kind == ir::TileStep::Kind::Forall) {
      const auto it = kernel.multi_tile->distributed.find(step.output);
      map = it == kernel.multi_tile->distributed.end() ? "" : it->second.map;
    }
    plan.steps.push_back({step.kind, map, fuses_from(*kernel.multi_tile, plan.steps.size()),
                          pass_manager::max_split_parts(step)});
  }
  return plan;
}

namespace {

template <typename Plan>
auto* find_map_in(Plan& plan, std::string_view name) {
  const auto it = std::find_if(plan.maps.begin(), plan.maps.end(),
                               [&](const MapPlan& m) { return m.name == name; });
  return it == plan.maps.end() ? nullptr : &*it;
}

} // namespace

std::string chosen_variant(const KernelPlan& plan, const std::string& op) {
  for (const auto& choice : plan.variants)
    if (choice.op == op)
      return choice.variant;
  return op;
}

const std::vector<std::string>* variant_group(const KernelPlan& plan, const std::string& op) {
  for (const auto& group : plan.variant_groups)
    if (std::find(group.begin(), group.end(), op) != group.end())
      return &group;
  return nullptr;
}

MapPlan* find_map(KernelPlan& plan, std::string_view name) {
  return find_map_in(plan, name);
}

const MapPlan* find_map(const KernelPlan& plan, std::string_view name) {
  return find_map_in(plan, name);
}

int fabric_tile(const MapPlan& map, int t) {
  return map.usable_tiles.empty() ? t : map.usable_tiles[static_cast<std::size_t>(t)];
}

bool uses_failed_tiles(const KernelPlan& plan, const std::vector<int>& also_failed) {
  const auto failed = [&](int tile) {
    return std::find(plan.failed_tiles.begin(), plan.failed_tiles.end(), tile) != plan.failed_tiles.end() ||
           std::find(also_failed.begin(), also_failed.end(), tile) != also_failed.end();
  };
  for (const MapPlan& map : plan.maps)
    for (int t = 0; t < map.tiles; ++t)
      if (failed(fabric_tile(map, t)))
        return true;
  return false;
}

namespace {

std::string steps_text(const KernelPlan& plan) {
  std::string out;
  for (const StepPlan& step : plan.steps)
    out += (out.empty() ? "" : ", ") + std::string(ir::library_name(step.kind)) +
           (step.map.empty() ? "" : " on '" + step.map + "'");
  return "[" + out + "]";
}

// A recorded plan that does not say which steps fuse (fuses_from -1) matches on kinds and maps.
bool same_steps(const std::vector<StepPlan>& recorded, const std::vector<StepPlan>& now) {
  return std::equal(recorded.begin(), recorded.end(), now.begin(), now.end(),
                    [](const StepPlan& r, const StepPlan& n) {
                      return r.kind == n.kind && r.map == n.map &&
                             (r.fuses_from < 0 || r.fuses_from == n.fuses_from);
                    });
}

void map_changes(const MapPlan& recorded, const MapPlan& now, std::vector<std::string>& out) {
  const std::string map = "map '" + now.name + "': ";
  if (recorded.protocol != now.protocol || recorded.columns != now.columns)
    out.push_back(map + "protocol " + ir::to_string(recorded.protocol) + " -> " +
                  ir::to_string(now.protocol));
  if (recorded.block != now.block)
    out.push_back(map + "its block changed");
  if (recorded.usable_tiles.empty() && recorded.tiles != now.tiles)
    out.push_back(map + std::to_string(recorded.tiles) + " tiles -> " + std::to_string(now.tiles));
}

} // namespace

std::vector<std::string> plan_changes(const KernelPlan& recorded, const KernelPlan& now) {
  std::vector<std::string> out;
  for (const MapPlan& map : recorded.maps)
    if (const MapPlan* current = find_map(now, map.name))
      map_changes(map, *current, out);
    else
      out.push_back("map '" + map.name + "' is no longer built (with constant sizes)");
  // A partial plan (no maps, no steps: only warp overrides, say) leaves those as written.
  if (!recorded.maps.empty())
    for (const MapPlan& map : now.maps)
      if (!find_map(recorded, map.name))
        out.push_back("map '" + map.name + "' is new");
  if (!recorded.steps.empty() && !same_steps(recorded.steps, now.steps))
    out.push_back("steps " + steps_text(recorded) + " -> " + steps_text(now));
  for (const PoolPlan& pool : recorded.pools)
    if (std::none_of(now.pools.begin(), now.pools.end(),
                     [&](const PoolPlan& p) { return p.name == pool.name; }))
      out.push_back("pool '" + pool.name + "' is no longer declared");
  return out;
}

std::vector<std::string> report_changes(const KernelPlan& plan, int tiles) {
  std::vector<std::string> out;
  for (const MapPlan& map : plan.maps)
    for (int t = 0; t < map.tiles; ++t)
      if (fabric_tile(map, t) >= tiles) {
        out.push_back("map '" + map.name + "' runs on tile " + std::to_string(fabric_tile(map, t)) +
                      ", the report has " + std::to_string(tiles) + " tiles");
        break;
      }
  return out;
}

nlohmann::ordered_json to_json(const KernelPlan& plan) {
  Json json;
  json["format"] = kPlanFormat;
  json["kernel"] = plan.kernel;
  json["source"] = plan.source;
  json["tiles"] = plan.tiles;
  json["failed_tiles"] = plan.failed_tiles;
  json["steps"] = Json::array();
  for (const auto& step : plan.steps) {
    Json s{{"kind", ir::library_name(step.kind)}};
    if (!step.map.empty())
      s["map"] = step.map;
    if (step.fuses_from >= 0)
      s["fuses_from"] = step.fuses_from;
    if (step.max_parts > 1)
      s["max_parts"] = step.max_parts;
    json["steps"].push_back(std::move(s));
  }
  json["maps"] = Json::array();
  for (const auto& map : plan.maps)
    json["maps"].push_back(map_json(map));
  json["pools"] = Json::array();
  for (const auto& pool : plan.pools) {
    Json p{{"name", pool.name}, {"ring_depth", pool.ring_depth}};
    if (!pool.tunable.empty())
      p["tunable"] = pool.tunable;
    json["pools"].push_back(std::move(p));
  }
  json["tunables"] = Json::object();
  for (const auto& [name, tunable] : plan.tunables) {
    Json t{{"value", tunable.value}};
    if (tunable.min)
      t["min"] = *tunable.min;
    if (tunable.max)
      t["max"] = *tunable.max;
    json["tunables"][name] = std::move(t);
  }
  json["warps"] = Json::array();
  for (const auto& warp : plan.warps)
    json["warps"].push_back({{"op", warp.op}, {"warp", warp.warp}});
  json["fusions"] = Json::array();
  for (const auto& fusion : plan.fusions)
    json["fusions"].push_back({{"first", fusion.first}, {"count", fusion.count}});
  json["splits"] = Json::array();
  for (const auto& split : plan.splits)
    json["splits"].push_back({{"step", split.step}, {"parts", split.parts}});
  json["variants"] = Json::array();
  for (const auto& variant : plan.variants)
    json["variants"].push_back({{"op", variant.op}, {"variant", variant.variant}});
  if (!plan.variant_groups.empty())
    json["variant_groups"] = plan.variant_groups;
  json["variables"] = Json::object();
  for (const auto& [name, value] : plan.variables)
    json["variables"][name] = value;
  return json;
}

std::optional<KernelPlan> plan_from_json(const nlohmann::ordered_json& json,
                                         const std::string& source, ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_plan(json); });
}

std::optional<KernelPlan> plan_from_text(std::string_view text, const std::string& source,
                                         ir::Diagnostics& diagnostics) {
  return read_reporting(source, diagnostics, [&] { return read_plan(parse_json_text(text)); });
}

} // namespace s2p::tuning
