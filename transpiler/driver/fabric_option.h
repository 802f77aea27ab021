// --fabric <file.json>: the fabric multi-tile kernels are compiled for (the simulator's
// fabric format, sim/README.md). It sets how many tiles S2P_TILES may span and how much SRAM a
// tile's pools may use.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace s2p::driver {

struct FabricLimits {
  std::int64_t tiles = 0;      // chips x tiles per chip
  std::int64_t sram_bytes = 0; // per tile
  std::int64_t tiles_per_chip = 0;
  std::int64_t hardware_threads = 0; // per tile: at most this many warps
  std::string description; // "2 chips of 4 tiles, 638976-byte tiles (f.json)"
};

// The limits the fabric file sets, or the reason it cannot be used.
std::variant<FabricLimits, std::string> read_fabric_limits(const std::string& path);

} // namespace s2p::driver
