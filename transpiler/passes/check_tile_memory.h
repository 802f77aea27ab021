// The pools of a warp-split kernel live in one tile's SRAM, beside its warps' code: when their
// sizes are known at transpile time, they must fit (the simulator checks the pools again at run
// time, against the tile it actually models).
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"

#include <seq2par/sim/machine_defaults.h>

namespace s2p::passes {

// Default: the built-in machine's tile.
inline constexpr std::int64_t kDefaultTileSramBytes =
    static_cast<std::int64_t>(sim::kDefaultTileSramBytes);

// The code of a kernel's warp images, as schedules/code_estimate.h estimates it once the warps
// are planned (none before).
struct TileCode {
  std::int64_t bytes = 0;
  std::size_t images = 0;
};

// Reports an error at the pool that overflows (the code, when given, counted first); returns
// whether the pools and the code fit.
bool check_tile_memory(const ir::Kernel& kernel, std::int64_t sram_bytes, ir::Diagnostics& diags,
                       const TileCode& code = {});

} // namespace s2p::passes
