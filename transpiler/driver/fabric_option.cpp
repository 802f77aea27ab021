#include "driver/fabric_option.h"

#include <seq2par/sim/fabric.h>

#include <exception>

namespace s2p::driver {

std::variant<FabricLimits, std::string> read_fabric_limits(const std::string& path) {
  try {
    const sim::Fabric fabric = sim::load_fabric(path);
    FabricLimits limits;
    limits.tiles = static_cast<std::int64_t>(fabric.total_tiles());
    limits.sram_bytes = static_cast<std::int64_t>(fabric.tile.sram_bytes);
    limits.tiles_per_chip = fabric.chip.tiles;
    limits.hardware_threads = fabric.tile.threads;
    limits.description = std::to_string(fabric.chips) + " chip" + (fabric.chips == 1 ? "" : "s") +
                         " of " + std::to_string(fabric.chip.tiles) + " tiles (" + path + ")";
    return limits;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

} // namespace s2p::driver
