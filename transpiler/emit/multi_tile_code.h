// Seed 004: the body of a multi-tile kernel (S2P_TILES) -- one image for every tile -- and
// its exchange schedules (seq2par.schedule/1 templates whose tile, offset and length
// fields are expressions of the tile index).
#pragma once

#include <cstdint>

#include "emit/warp_code.h"
#include "ir/kernel.h"

#include <string>
#include <utility>
#include <vector>

namespace s2p::emit {

struct ScheduleOptions {
  std::uint32_t tiles_per_chip = 1472; // collective rings span chips of this size
  std::string fabric_file;             // --fabric: forall templates are planned on it
};

// The kernel's schedule templates: "<kernel>.schedule.json", or "<kernel>.<k>.schedule.json"
// for step k when the kernel has several steps.
//  - a collective: the ring template (S, the bytes per tile, set when the kernel runs);
//  - a forall: the owner-copy schedule for the extents every call in the file passes, when
//    they are constants (schedule_templates.h); otherwise no file, and `notes` says why.
// Empty when seq2par was built without the fabric simulator.
struct MultiTileSchedules {
  std::vector<std::pair<std::string, std::string>> files; // (file name suffix, content)
  std::vector<std::string> notes; // per step: the comment the generated code carries
  // Steps that fail when run as the file calls the kernel (warnings, at the kernel).
  std::vector<std::string> warnings;
};
MultiTileSchedules multi_tile_schedules(const ir::Kernel& kernel,
                                        const ScheduleOptions& options = {});

std::string emit_multi_tile_body(const ir::Kernel& kernel, const EmitOptions& options,
                                 const MultiTileSchedules& schedules);

} // namespace s2p::emit
