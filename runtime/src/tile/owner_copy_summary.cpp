#include "tile/owner_copy_summary.h"

#include <vector>

namespace s2p::rt {

nlohmann::ordered_json owner_copy_summary(const tile_kernel_info& info,
                                          const tile_program& program) {
  std::vector<std::int64_t> bytes_in(static_cast<std::size_t>(info.tiles), 0),
      bytes_out(static_cast<std::size_t>(info.tiles), 0);
  std::size_t moves = 0;
  for (const auto& m : program.moves) {
    if (program.fields[static_cast<std::size_t>(m.field)].shared)
      continue; // a shared structure's multicast, reported with the shared structures
    ++moves;
    bytes_in[static_cast<std::size_t>(m.to_tile)] += m.bytes;
    bytes_out[static_cast<std::size_t>(m.from_tile)] += m.bytes;
  }
  nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
  for (int t = 0; t < info.tiles; ++t)
    tiles.push_back({{"tile", t},
                     {"bytes_in", bytes_in[static_cast<std::size_t>(t)]},
                     {"bytes_out", bytes_out[static_cast<std::size_t>(t)]}});
  nlohmann::ordered_json summary{{"moves", moves},
                                 {"planned_bytes", program.planned_bytes}};
  if (program.minimum_bytes >= 0) {
    summary["minimum_bytes"] = program.minimum_bytes;
    summary["ratio"] = program.minimum_bytes > 0 ? static_cast<double>(program.planned_bytes) /
                                                       static_cast<double>(program.minimum_bytes)
                                                 : 1.0;
  }
  summary["per_tile"] = tiles;
  if (program.work_stealing)
    summary["work_stealing"] = {{"stolen_tasks", program.stolen_tasks},
                                {"extra_bytes", program.stealing_bytes}};
  return summary;
}

nlohmann::ordered_json shared_structures_summary(const tile_program& program) {
  nlohmann::ordered_json structures = nlohmann::ordered_json::array();
  for (const auto& s : program.shared) {
    nlohmann::ordered_json entry{{"name", s.name},
                                 {"bytes", s.bytes},
                                 {"decision", s.shared ? "shared" : "replicated"},
                                 {"read_here", s.read_here},
                                 {"reason", s.reason}};
    if (s.shared)
      entry["master"] = s.master;
    structures.push_back(std::move(entry));
  }
  // What sharing saved against full replication (never negative: the plan shares only where
  // that lowers the peak).
  return {{"structures", structures},
          {"planned_peak_bytes", program.shared_peak_bytes},
          {"replicated_peak_bytes", program.replicated_peak_bytes},
          {"sharing_saved_bytes", program.replicated_peak_bytes - program.shared_peak_bytes}};
}

} // namespace s2p::rt
