#include "pass_manager/transpile_options.h"

namespace s2p::pass_manager {

nlohmann::ordered_json to_json(const TranspileOptions& options) {
  nlohmann::ordered_json passes;
  passes["keep_redundant"] = options.passes.keep_redundant;
  passes["verify"] = options.passes.verify;
  passes["tile_sram_bytes"] = options.passes.tile_sram_bytes;
  passes["max_calls"] = options.passes.cdfg.max_nodes;
  passes["auto_warps"] = options.passes.auto_warps
                             ? nlohmann::ordered_json(options.passes.auto_warps->warps)
                             : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json fabric;
  fabric["tiles"] = options.fabric.tiles;
  fabric["description"] = options.fabric.description;
  fabric["tiles_per_chip"] = options.fabric.tiles_per_chip;
  fabric["file"] = options.fabric.file;
  fabric["hardware_threads"] = options.fabric.hardware_threads;
  nlohmann::ordered_json dumps = nlohmann::ordered_json::array();
  for (const auto kind : options.dumps)
    dumps.push_back(std::string(dump::name_of(kind)));
  nlohmann::ordered_json out;
  out["passes"] = std::move(passes);
  out["fabric"] = std::move(fabric);
  out["given_extents"] = options.given_extents;
  nlohmann::ordered_json plans = nlohmann::ordered_json::object();
  for (const auto& [kernel, maps] : options.decisions.map_weights)
    for (const auto& map : maps)
      plans[kernel].push_back({{"map", map.map},
                               {"weights", map.weights},
                               {"plan_file", map.plan_file},
                               {"usable_tiles", map.usable_tiles}});
  out["plan_overrides"] = std::move(plans);
  nlohmann::ordered_json warps = nlohmann::ordered_json::object();
  for (const auto& [kernel, moves] : options.decisions.warps)
    for (const auto& move : moves)
      warps[kernel].push_back({{"op", move.op}, {"warp", move.warp}, {"plan_file", move.plan_file}});
  out["warp_overrides"] = std::move(warps);
  nlohmann::ordered_json fusions = nlohmann::ordered_json::object();
  for (const auto& [kernel, list] : options.decisions.fusions)
    for (const auto& fusion : list)
      fusions[kernel].push_back(
          {{"first", fusion.first}, {"count", fusion.count}, {"plan_file", fusion.plan_file}});
  out["fusions"] = std::move(fusions);
  nlohmann::ordered_json splits = nlohmann::ordered_json::object();
  for (const auto& [kernel, list] : options.decisions.splits)
    for (const auto& split : list)
      splits[kernel].push_back(
          {{"step", split.step}, {"parts", split.parts}, {"plan_file", split.plan_file}});
  out["splits"] = std::move(splits);
  nlohmann::ordered_json variants = nlohmann::ordered_json::object();
  for (const auto& [kernel, list] : options.decisions.variants)
    for (const auto& use : list)
      variants[kernel].push_back({{"op", use.op}, {"variant", use.variant}, {"plan_file", use.plan_file}});
  out["variants"] = std::move(variants);
  nlohmann::ordered_json tunables = nlohmann::ordered_json::object();
  for (const auto& [name, tunable] : options.decisions.tunables)
    tunables[name] = {{"value", tunable.value}, {"plan_file", tunable.plan_file}};
  out["tunables"] = std::move(tunables);
  out["dumps"] = std::move(dumps);
  out["dump_after"] = options.dump_after;
  out["style"] = options.style;
  return out;
}

} // namespace s2p::pass_manager
