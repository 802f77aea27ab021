// Binding one tile's built-in symbols (tile, chip, chip_tile) in an expression environment: the
// step before evaluating a per-tile field of a schedule, shared by the resolver's files.
#pragma once

#include <cstdint>
#include <vector>

#include "seq2par/sim/schedule.h"

namespace s2p::sim::detail {

inline void bind_tile(std::vector<std::int64_t>& env, const Schedule& schedule, TileId tile) {
  env[BuiltinSlots::kTile] = tile;
  env[BuiltinSlots::kChip] = schedule.chip_of(tile);
  env[BuiltinSlots::kChipTile] = schedule.chip_tile_of(tile);
}

} // namespace s2p::sim::detail
