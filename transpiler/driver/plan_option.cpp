#include "driver/plan_option.h"

#include "tuning/plan.h"

#include <fstream>
#include <sstream>

namespace s2p::driver {

namespace {

// What the plan decides that --plan does not apply, for the warning.
std::vector<std::string> not_applied(const tuning::KernelPlan& plan) {
  std::vector<std::string> out;
  for (const auto& pool : plan.pools)
    if (pool.ring_depth != 1)
      out.push_back("ring depth of pool '" + pool.name + "'");
  const std::pair<bool, const char*> others[] = {{!plan.fusions.empty(), "fusions"},
                                                 {!plan.splits.empty(), "splits"},
                                                 {!plan.variants.empty(), "variants"}};
  for (const auto& [present, what] : others)
    if (present)
      out.emplace_back(what);
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
    if (files.overrides.contains(plan->kernel))
      return path + ": a second plan for kernel '" + plan->kernel + "'";
    auto& maps = files.overrides[plan->kernel];
    for (const auto& map : plan->maps) {
      if (!map.usable_tiles.empty())
        return path + ": map '" + map.name + "' runs on tiles other than 0.." +
               std::to_string(map.tiles - 1) + " (usable_tiles): --plan does not apply that yet";
      if (!map.weights.empty())
        maps.push_back({map.name, map.weights, path});
    }
    for (const auto& warp : plan->warps)
      files.warps[plan->kernel].push_back({warp.op, warp.warp, path});
    if (const auto skipped = not_applied(*plan); !skipped.empty())
      files.warnings.push_back(path + ": not applied by --plan yet: " + join(skipped));
  }
  return files;
}

} // namespace s2p::driver
