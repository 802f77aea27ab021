// The built-in machine: a GC200-class chip (1472 tiles of 624 KiB SRAM, six hardware
// threads each). The one place these numbers are written: the fabric model (`Fabric`'s
// defaults), the warp-level tile model (`tile::TileParams`), the runtime's launches without a
// fabric file and seq2par's defaults (--tiles, --tile-sram, rings' chips) all read them here.
// Header-only and dependency-free, so every layer can include it.
#pragma once

#include <cstdint>

namespace s2p::sim {

inline constexpr std::uint32_t kDefaultTilesPerChip = 1472;
inline constexpr std::uint64_t kDefaultTileSramBytes = std::uint64_t{624} * 1024;
inline constexpr std::uint64_t kDefaultTileBankBytes = std::uint64_t{16} * 1024;
inline constexpr std::uint32_t kDefaultHardwareThreads = 6;

} // namespace s2p::sim
