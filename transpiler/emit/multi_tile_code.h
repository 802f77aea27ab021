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

std::string emit_multi_tile_body(const ir::Kernel& kernel, const EmitOptions& options);

// (file name suffix, content) per step with a schedule: "<kernel>.schedule.json", or
// "<kernel>.<k>.schedule.json" when the kernel has several. Empty when seq2par was built
// without the fabric simulator's schedule generators.
// One schedule template per collective, for a fabric whose chips hold `tiles_per_chip` tiles
// (a ring spanning more tiles is split evenly over the fewest chips that allow it).
std::vector<std::pair<std::string, std::string>>
multi_tile_schedules(const ir::Kernel& kernel, std::uint32_t tiles_per_chip = 1472);

} // namespace s2p::emit
