// The tile the `sim` backend runs warps on: defaults of sim::tile::TileParams, overridden
// by S2P_TILE_THREADS, S2P_TILE_SRAM (bytes), S2P_SYNC_LATENCY (cycles).
#pragma once

#include "tile_threads.h"

namespace s2p::rt {

sim::tile::TileParams tile_params_from_environment();

} // namespace s2p::rt
