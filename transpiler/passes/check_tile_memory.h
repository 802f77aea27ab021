// The pools of a warp-split kernel live in one tile's SRAM: when their sizes are known at
// transpile time, they must fit (the simulator checks again at run time, against the
// tile it actually models).
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"

#include <seq2par/sim/machine_defaults.h>

namespace s2p::passes {

// Default: the built-in machine's tile.
inline constexpr std::int64_t kDefaultTileSramBytes =
    static_cast<std::int64_t>(sim::kDefaultTileSramBytes);

// Reports an error at the pool that overflows; returns whether the pools fit.
bool check_tile_memory(const ir::Kernel& kernel, std::int64_t sram_bytes, ir::Diagnostics& diags);

} // namespace s2p::passes
