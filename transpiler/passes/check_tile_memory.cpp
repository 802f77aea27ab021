#include "passes/check_tile_memory.h"

namespace s2p::passes {

bool check_tile_memory(const ir::Kernel& kernel, std::int64_t sram_bytes, ir::Diagnostics& diags,
                       const TileCode& code) {
  std::int64_t total = code.bytes;
  std::string breakdown;
  if (code.images > 0)
    breakdown = "the code of " + std::to_string(code.images) + " warp image" +
                (code.images == 1 ? "" : "s") + ", estimated: " + std::to_string(code.bytes);
  const std::string what = code.images > 0 ? "pools and code" : "pools";
  for (const auto& pool : kernel.pools) {
    const std::int64_t bytes = pool.bytes();
    total += bytes;
    breakdown += (breakdown.empty() ? "" : ", ") + pool.name + ": " + std::to_string(bytes);
    if (total > sram_bytes) {
      diags.error(pool.loc, "the " + what + " of kernel '" + kernel.name + "' need " +
                                std::to_string(total) + " bytes (" + breakdown +
                                ") but a tile has " + std::to_string(sram_bytes) +
                                " bytes of SRAM (--tile-sram)");
      return false;
    }
  }
  if (total > sram_bytes) { // code alone, in a kernel with no pool
    diags.error(kernel.loc, "the code of kernel '" + kernel.name + "' needs " +
                                std::to_string(total) + " bytes (" + breakdown +
                                ") but a tile has " + std::to_string(sram_bytes) +
                                " bytes of SRAM (--tile-sram)");
    return false;
  }
  return true;
}

} // namespace s2p::passes
