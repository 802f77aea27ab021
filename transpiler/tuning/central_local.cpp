#include "tuning/central_local.h"

#include <algorithm>
#include <numeric>

namespace s2p::tuning {

namespace {

// A map's weight of its tile `t` (1 when the map has none).
double weight_of(const MapPlan& map, int t) {
  return map.weights.empty() ? 1.0 : map.weights[static_cast<std::size_t>(t)];
}

// The map's tiles on `chip`, as positions 0..tiles-1 of the map.
std::vector<int> tiles_on_chip(const MapPlan& map, int chip, int tiles_per_chip) {
  std::vector<int> out;
  for (int t = 0; t < map.tiles; ++t)
    if (chip_of(fabric_tile(map, t), tiles_per_chip) == chip)
      out.push_back(t);
  return out;
}

std::vector<double> slice(const std::vector<double>& values, int chip, int tiles_per_chip) {
  std::vector<double> out;
  for (int t = 0; t < tiles_per_chip; ++t) {
    const auto at = static_cast<std::size_t>(chip) * static_cast<std::size_t>(tiles_per_chip) +
                    static_cast<std::size_t>(t);
    out.push_back(at < values.size() ? values[at] : 0.0);
  }
  return out;
}

// The fabric tiles and weights of one map of the merged plan, chip by chip.
void merge_map(MapPlan& map, const KernelPlan& central, const std::vector<LocalRound>& chips,
               int tiles_per_chip) {
  const MapPlan& whole = *find_map(central, map.name);
  std::vector<int> tiles;
  std::vector<double> weights;
  for (const LocalRound& chip : chips) {
    const MapPlan* local = find_map(chip.local.plan, map.name);
    if (!local)
      continue;
    double share = 0; // the central decision: the map's work on this chip
    for (const int t : tiles_on_chip(whole, chip.chip, tiles_per_chip))
      share += weight_of(whole, t);
    double local_sum = 0;
    for (int t = 0; t < local->tiles; ++t)
      local_sum += weight_of(*local, t);
    for (int t = 0; t < local->tiles; ++t) {
      tiles.push_back(chip.chip * tiles_per_chip + fabric_tile(*local, t));
      weights.push_back(share * weight_of(*local, t) / local_sum);
    }
  }
  if (tiles.empty())
    return; // no chip refined it: as the central plan has it
  map.tiles = static_cast<int>(tiles.size());
  map.weights = normalized_weights(weights);
  bool identity = true;
  for (std::size_t i = 0; i < tiles.size(); ++i)
    identity = identity && tiles[i] == static_cast<int>(i);
  map.usable_tiles = identity ? std::vector<int>{} : tiles;
}

} // namespace

std::optional<KernelPlan> local_part(const KernelPlan& central, int chip, int tiles_per_chip) {
  KernelPlan part = central;
  part.maps.clear();
  part.tiles = tiles_per_chip;
  part.failed_tiles.clear();
  for (const int tile : central.failed_tiles)
    if (chip_of(tile, tiles_per_chip) == chip)
      part.failed_tiles.push_back(tile - chip * tiles_per_chip);
  for (const MapPlan& map : central.maps) {
    const std::vector<int> on_chip = tiles_on_chip(map, chip, tiles_per_chip);
    if (on_chip.empty())
      continue;
    MapPlan local = map;
    local.tiles = static_cast<int>(on_chip.size());
    local.weights.clear();
    local.usable_tiles.clear();
    bool identity = true;
    for (std::size_t i = 0; i < on_chip.size(); ++i) {
      const int tile = fabric_tile(map, on_chip[i]) - chip * tiles_per_chip;
      local.usable_tiles.push_back(tile);
      identity = identity && tile == static_cast<int>(i);
      if (!map.weights.empty())
        local.weights.push_back(weight_of(map, on_chip[i]));
    }
    if (identity)
      local.usable_tiles.clear();
    part.maps.push_back(std::move(local));
  }
  if (part.maps.empty())
    return std::nullopt;
  return part;
}

Feedback local_feedback(const Feedback& feedback, int chip, int tiles_per_chip) {
  Feedback local = feedback;
  for (auto* values : {&local.busy, &local.idle, &local.compute, &local.exchange,
                       &local.peak_memory, &local.free_memory, &local.bytes_in, &local.bytes_out})
    *values = slice(*values, chip, tiles_per_chip);
  local.tiles = tiles_per_chip;
  local.chips = 1;
  local.tiles_per_chip = tiles_per_chip;
  local.failed_tiles.clear();
  for (const int tile : feedback.failed_tiles)
    if (chip_of(tile, tiles_per_chip) == chip)
      local.failed_tiles.push_back(tile - chip * tiles_per_chip);
  return local;
}

CentralLocalResult refine_locally(const KernelPlan& central, const Feedback& feedback,
                                  int tiles_per_chip,
                                  const std::function<RuleSet(int chip)>& rules_of,
                                  const ApplyOptions& options) {
  CentralLocalResult result;
  int chips = 0;
  for (const MapPlan& map : central.maps)
    for (int t = 0; t < map.tiles; ++t)
      chips = std::max(chips, chip_of(fabric_tile(map, t), tiles_per_chip) + 1);
  for (int chip = 0; chip < chips; ++chip) {
    auto part = local_part(central, chip, tiles_per_chip);
    if (!part)
      continue;
    ApplyResult local =
        apply_rules(*part, rules_of(chip), local_feedback(feedback, chip, tiles_per_chip), options);
    result.chips.push_back({chip, std::move(*part), std::move(local)});
  }
  result.merged = merge(central, result.chips, tiles_per_chip);
  return result;
}

KernelPlan merge(const KernelPlan& central, const std::vector<LocalRound>& chips,
                 int tiles_per_chip) {
  KernelPlan merged = central;
  for (MapPlan& map : merged.maps)
    merge_map(map, central, chips, tiles_per_chip);
  for (const LocalRound& chip : chips)
    for (const int tile : chip.local.plan.failed_tiles)
      merged.failed_tiles.push_back(chip.chip * tiles_per_chip + tile);
  std::sort(merged.failed_tiles.begin(), merged.failed_tiles.end());
  merged.failed_tiles.erase(std::unique(merged.failed_tiles.begin(), merged.failed_tiles.end()),
                            merged.failed_tiles.end());
  for (const MapPlan& map : merged.maps)
    for (const int tile : map.usable_tiles)
      merged.tiles = std::max(merged.tiles, tile + 1);
  return merged;
}

} // namespace s2p::tuning
