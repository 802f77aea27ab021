#include "passes/check_tile_memory.h"

namespace s2p::passes {

bool check_tile_memory(const ir::Kernel& kernel, std::int64_t sram_bytes, ir::Diagnostics& diags) {
  std::int64_t total = 0;
  std::string breakdown;
  for (const auto& pool : kernel.pools) {
    const std::int64_t bytes = pool.units * pool.element_bytes;
    total += bytes;
    breakdown += (breakdown.empty() ? "" : ", ") + pool.name + ": " + std::to_string(bytes);
    if (total > sram_bytes) {
      diags.error(pool.loc, "the pools of kernel '" + kernel.name + "' need " +
                                std::to_string(total) + " bytes (" + breakdown +
                                ") but a tile has " + std::to_string(sram_bytes) +
                                " bytes of SRAM (--tile-sram)");
      return false;
    }
  }
  return true;
}

} // namespace s2p::passes
