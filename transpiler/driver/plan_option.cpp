#include "driver/plan_option.h"

#include "tuning/plan.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace s2p::driver {

namespace {

// What the plan decides that --plan does not apply, for the warning.
std::vector<std::string> not_applied(const tuning::KernelPlan& plan) {
  std::vector<std::string> out;
  for (const auto& pool : plan.pools)
    if (pool.ring_depth != 1 && pool.tunable.empty())
      out.push_back("ring depth of pool '" + pool.name + "' (its slot count is not a tunable)");
  return out;
}

// The map's weights and the fabric tiles it deals to (usable_tiles empty: its tiles
// 0..tiles-1), less the plan's failed tiles: a plan that names a failed tile never runs a map's
// segments on it, even when its maps were written before the tile failed. Nothing when every
// tile of the map failed.
std::optional<pass_manager::MapWeights> without_failed_tiles(const tuning::MapPlan& map,
                                                         const std::vector<int>& failed) {
  pass_manager::MapWeights out{map.name, {}, "", {}};
  bool dropped = false;
  for (int t = 0; t < map.tiles; ++t) {
    const int tile = tuning::fabric_tile(map, t);
    if (std::find(failed.begin(), failed.end(), tile) != failed.end()) {
      dropped = true;
      continue;
    }
    out.usable_tiles.push_back(tile);
    if (!map.weights.empty())
      out.weights.push_back(map.weights[static_cast<std::size_t>(t)]);
  }
  if (out.usable_tiles.empty())
    return std::nullopt;
  if (!dropped && map.usable_tiles.empty())
    out.usable_tiles.clear(); // all of the map's tiles
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out;
}

} // namespace

std::variant<PlanFiles, std::string> read_plan_files(const std::vector<std::string>& paths) {
  PlanFiles files;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    if (!in)
      return path + ": cannot read the plan";
    std::stringstream text;
    text << in.rdbuf();
    ir::Diagnostics diagnostics;
    const auto plan = tuning::plan_from_text(text.str(), path, diagnostics);
    if (!plan)
      return path + ": " + diagnostics.items().front().message;
    if (files.decisions.map_weights.contains(plan->kernel))
      return path + ": a second plan for kernel '" + plan->kernel + "'";
    auto& maps = files.decisions.map_weights[plan->kernel];
    for (const auto& map : plan->maps) {
      auto usable = without_failed_tiles(map, plan->failed_tiles);
      if (!usable)
        return path + ": every tile of map '" + map.name + "' is in failed_tiles";
      if (!usable->weights.empty() || !usable->usable_tiles.empty()) {
        usable->plan_file = path;
        maps.push_back(std::move(*usable));
      }
    }
    for (const auto& [name, tunable] : plan->tunables) {
      const auto [it, added] = files.decisions.tunables.emplace(name, pass_manager::TunableValue{tunable.value, path});
      if (!added && it->second.value != tunable.value)
        return path + ": tunable '" + name + "' = " + std::to_string(tunable.value) + ", but " +
               it->second.plan_file + " sets it to " + std::to_string(it->second.value);
    }
    for (const auto& fusion : plan->fusions)
      files.decisions.fusions[plan->kernel].push_back({fusion.first, fusion.count, path});
    for (std::size_t i = 0; i < plan->variants.size(); ++i)
      files.decisions.variants[plan->kernel].push_back({plan->variants[i].op, plan->variants[i].variant, i, path});
    for (const auto& split : plan->splits)
      files.decisions.splits[plan->kernel].push_back({split.step, split.parts, path});
    for (const auto& warp : plan->warps)
      files.decisions.warps[plan->kernel].push_back({warp.op, warp.warp, path});
    if (const auto skipped = not_applied(*plan); !skipped.empty())
      files.warnings.push_back(path + ": not applied by --plan yet: " + join(skipped));
  }
  return files;
}

} // namespace s2p::driver
