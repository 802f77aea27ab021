// <seq2par/planning/placement.h> — where a multi-tile launch's tiles sit on the fabric, and
// the fabric a launch runs on when no fabric file is given. The runtime and seq2par place
// tiles with these same functions, so a schedule template names the chips the run uses.
#pragma once

#include <seq2par/sim/fabric.h>

#include <cstdint>

namespace s2p::rt {

// Chips a launch of `tiles` uses on `fabric`: tile t on chip t / (tiles / chips).
// `even_split`: the fewest chips that split the tiles evenly (the ring generators need it).
std::uint32_t chips_for(const sim::Fabric& fabric, std::uint32_t tiles, bool even_split);

// Tiles per chip of a forall's placement: whole chips of the fabric, or all on one.
std::uint32_t tiles_per_chip_for(const sim::Fabric& fabric, std::uint32_t tiles);

// The built-in chip (sim::default_fabric()), repeated as often as `tiles` needs: what a launch
// runs on without a fabric file.
sim::Fabric default_fabric_for(std::uint32_t tiles);

} // namespace s2p::rt
