// Where a launch's tiles sit on the fabric (see <seq2par/planning/placement.h>).
#include <seq2par/planning/placement.h>

#include <algorithm>
#include <string>

namespace s2p::rt {

std::uint32_t chips_for(const sim::Fabric& fabric, std::uint32_t tiles, bool even_split) {
  std::uint32_t chips = (tiles + fabric.chip.tiles - 1) / fabric.chip.tiles;
  // The ring generators split tiles evenly over chips; find the fewest chips that allow it.
  while (even_split && tiles % chips != 0)
    ++chips;
  return chips;
}

std::uint32_t tiles_per_chip_for(const sim::Fabric& fabric, std::uint32_t tiles) {
  return chips_for(fabric, tiles, false) > 1 ? fabric.chip.tiles
                                             : std::max<std::uint32_t>(tiles, 1);
}

sim::Fabric default_fabric_for(std::uint32_t tiles) {
  sim::Fabric fabric = sim::default_fabric();
  fabric.chips = std::max<std::uint32_t>(1, (tiles + fabric.chip.tiles - 1) / fabric.chip.tiles);
  if (fabric.chips > 1)
    fabric.name += ", " + std::to_string(fabric.chips) + " chips";
  return fabric;
}

} // namespace s2p::rt
