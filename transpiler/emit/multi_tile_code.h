// The body of a multi-tile kernel (S2P_TILES) -- one image for every tile -- and
// its exchange schedules (seq2par.schedule/1 templates whose tile, offset and length
// fields are expressions of the tile index).
#pragma once

#include <cstdint>

#include "emit/warp_code.h"
#include "ir/kernel.h"
#include "schedules/tile_schedules.h"

#include <string>
#include <utility>
#include <vector>

namespace s2p::emit {

std::string emit_multi_tile_body(const ir::Kernel& kernel, const EmitOptions& options,
                                 const schedules::TileSchedules& schedules);

} // namespace s2p::emit
