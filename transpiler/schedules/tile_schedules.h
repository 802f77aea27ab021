// Multi-tile planning: every step of a tile kernel gets its schedule template (a forall's
// owner-copy moves, a collective's ring) where the extents allow it, and a note saying what
// was planned or why not. Emit prints the notes into the generated code; the driver writes
// the templates beside it.
#pragma once

#include "ir/kernel.h"

#include <seq2par/sim/machine_defaults.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace s2p::schedules {

struct ScheduleOptions {
  std::uint32_t tiles_per_chip = sim::kDefaultTilesPerChip; // collective rings' chips
  std::string fabric_file;             // --fabric: forall templates are planned on it
  std::uint64_t tile_sram_bytes = 0;   // --tile-sram (or the fabric's; 0: the fabric's)
};

struct TileSchedules {
  std::vector<std::pair<std::string, std::string>> files; // (file name suffix, content)
  std::vector<std::string> notes; // per step: the comment the generated code carries
  // Steps that cannot run at the planned extents: that do not fit the fabric, or that the
  // runtime would refuse as the file calls the kernel (errors, at the step).
  std::vector<std::pair<ir::SourceLocation, std::string>> errors;
};

// Throws only when a generator refuses its input (a bug of seq2par's, reported as such).
TileSchedules plan_tile_schedules(const ir::Kernel& kernel, const ScheduleOptions& options = {});

} // namespace s2p::schedules
