// Feedback: what a run measured, as the numbers tuning rules read (tuning/variables.h names
// them). Read from a fabric simulator report (`seq2par.sim-report/1`), either the one
// `s2p-sim run --report` writes (per-tile statistics at "tiles.per_tile") or the one a
// program writes with S2P_BACKEND=sim S2P_REPORT=r.json (its "launches": the kernel's last
// fabric launch, and the busy fraction of its warps from warp launches).
#pragma once

#include "ir/diagnostic.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace s2p::tuning {

struct Feedback {
  // Per tile of the run, index = fabric tile.
  std::vector<double> busy;    // compute + exchange cycles
  std::vector<double> idle;    // total - busy
  std::vector<double> compute;
  std::vector<double> exchange;
  std::vector<double> peak_memory; // bytes
  std::vector<double> free_memory; // SRAM bytes - peak
  std::vector<double> bytes_in;
  std::vector<double> bytes_out;
  // The whole run, summed over supersteps.
  double total_cycles = 0;
  double compute_cycles = 0;
  double exchange_cycles = 0;
  double sync_cycles = 0;
  // The fabric it ran on.
  int tiles = 0;
  int chips = 0;
  int tiles_per_chip = 0;
  double sram_bytes = 0;
  std::vector<int> failed_tiles; // reported by the caller (the simulator has no failed tiles)
  // Per warp of the kernel's warp launches: waiting / (busy + waiting), the bubble fraction;
  // of a multi-tile kernel's warp tasks: 1 - busy / the tasks' cycles, over all tiles.
  std::vector<double> warp_bubble;
  // Input sizes and other caller-supplied facts, read as `input.<name>`.
  std::map<std::string, double> inputs;
};

// The feedback for `kernel` from a report (either form above); an empty kernel name takes the
// first kernel. A report without what the rules need is an error naming the field.
std::optional<Feedback> feedback_from_report(const nlohmann::ordered_json& report,
                                             const std::string& kernel, const std::string& source,
                                             ir::Diagnostics& diagnostics);
std::optional<Feedback> feedback_from_text(std::string_view text, const std::string& kernel,
                                           const std::string& source,
                                           ir::Diagnostics& diagnostics);

} // namespace s2p::tuning
