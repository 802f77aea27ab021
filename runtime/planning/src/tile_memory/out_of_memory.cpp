// The tile's live peak and the out-of-memory verdict: a value naming the tile, its peak live set
// and its biggest variables, so a user sees what to move (the simulator reports the same way).
#include "tile_memory_internal.h"

#include <algorithm>

namespace s2p::rt {

namespace {

// Biggest first, then by id, so verdicts are deterministic.
void sort_biggest_first(std::span<const tile_variable> variables, std::vector<variable_id>& ids) {
  std::sort(ids.begin(), ids.end(), [&](variable_id a, variable_id b) {
    return variables[a].bytes != variables[b].bytes ? variables[a].bytes > variables[b].bytes
                                                    : a < b;
  });
}

std::string named_list(std::span<const tile_variable> variables, std::span<const variable_id> ids) {
  std::string text;
  for (const variable_id v : ids)
    text += (text.empty() ? "'" : ", '") + variables[v].name + "' " +
            memory_size_text(variables[v].bytes);
  return text;
}

} // namespace

std::string memory_size_text(std::uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " bytes";
  const std::uint64_t tenths = (bytes * 10 + 512) / 1024;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " KiB";
}

live_peak peak_live(std::span<const tile_variable> variables,
                    std::span<const variable_id> on_tile) {
  // Sweep: +bytes where a variable becomes live, -bytes after its last superstep.
  std::vector<std::pair<std::uint64_t, std::int64_t>> changes;
  changes.reserve(on_tile.size() * 2);
  for (const variable_id v : on_tile) {
    const tile_variable& var = variables[v];
    changes.emplace_back(var.live.first, static_cast<std::int64_t>(var.bytes));
    changes.emplace_back(std::uint64_t{var.live.last} + 1, -static_cast<std::int64_t>(var.bytes));
  }
  std::sort(changes.begin(), changes.end()); // at one superstep, ends before starts
  live_peak peak;
  std::int64_t live = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    live += changes[i].second;
    const bool last_change_here =
        i + 1 == changes.size() || changes[i + 1].first != changes[i].first;
    if (last_change_here && static_cast<std::uint64_t>(live) > peak.bytes) {
      peak.bytes = static_cast<std::uint64_t>(live);
      peak.superstep = static_cast<std::uint32_t>(changes[i].first);
    }
  }
  for (const variable_id v : on_tile)
    if (variables[v].live.first <= peak.superstep && peak.superstep <= variables[v].live.last &&
        variables[v].bytes > 0)
      peak.live_set.push_back(v);
  sort_biggest_first(variables, peak.live_set);
  return peak;
}

tile_out_of_memory out_of_memory_verdict(const memory_problem& problem, std::uint32_t tile,
                                         std::span<const variable_id> on_tile,
                                         const live_peak& peak, std::vector<variable_id> unplaced) {
  tile_out_of_memory verdict{
      tile, peak.bytes, peak.superstep, peak.live_set, {}, std::move(unplaced), {}};
  verdict.biggest.assign(on_tile.begin(), on_tile.end());
  sort_biggest_first(problem.variables, verdict.biggest);
  if (verdict.biggest.size() > 3)
    verdict.biggest.resize(3);
  const std::uint64_t sram = problem.params.sram_bytes;
  // Live bytes above SRAM cannot fit in any layout; below it, what failed is the packing under
  // the contiguity and bank rules, which the message says too.
  const std::string why =
      peak.bytes > sram
          ? ""
          : " (the live bytes fit, but not as contiguous ranges" +
                std::string(problem.params.separate_banks ? " in separate banks)" : ")");
  verdict.message = "tile " + std::to_string(tile) + ": out of memory: " +
                    memory_size_text(peak.bytes) +
                    " live at superstep " + std::to_string(peak.superstep) +
                    " (the peak), the tile has " + memory_size_text(sram) + " of SRAM" + why +
                    "; biggest: " + named_list(problem.variables, verdict.biggest) +
                    "; not placed: " + named_list(problem.variables, verdict.unplaced);
  return verdict;
}

} // namespace s2p::rt
