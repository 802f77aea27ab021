// Which fabric multi-tile launches run on, and how their tiles are placed on its chips.
#include "tile/sim/fabric_support.h"
#include "core/integer_setting.h"
#include "tile/runners.h"

#include <seq2par/planning/placement.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace s2p::rt {

bool has_fabric_simulator() {
  return true;
}

launch_fabric_choice launch_fabric(const tile_kernel_info& info) {
  const auto tiles = static_cast<std::uint64_t>(info.tiles);
  if (const char* path = std::getenv("S2P_FABRIC"); path && *path) {
    sim::Fabric fabric;
    try {
      fabric = sim::load_fabric(path);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("seq2par: S2P_FABRIC: ") + e.what());
    }
    if (tiles > fabric.total_tiles())
      throw std::runtime_error(std::string("seq2par: kernel '") + info.name + "' spans " +
                               std::to_string(tiles) + " tiles but the fabric in " + path +
                               " has " + std::to_string(fabric.total_tiles()) + " (" +
                               std::to_string(fabric.chips) + " chips of " +
                               std::to_string(fabric.chip.tiles) + ")");
    return {fabric, path};
  }
  return {default_fabric_for(static_cast<std::uint32_t>(tiles)), {}};
}

unsigned fabric_sim_threads() {
  return static_cast<unsigned>(
      integer_setting("S2P_SIM_THREADS", 0, 1, 1024, "a number of threads (1 to 1024)"));
}

std::vector<int> forall_chips(const tile_kernel_info& info) {
  std::vector<int> chips(static_cast<std::size_t>(std::max(info.tiles, 0)), 0);
  const std::uint32_t per_chip =
      tiles_per_chip_for(launch_fabric(info).fabric, static_cast<std::uint32_t>(info.tiles));
  for (std::size_t t = 0; t < chips.size(); ++t)
    chips[t] = static_cast<int>(t / per_chip);
  return chips;
}

void add_fabric_costs(const tile_kernel_info& info, steal_costs& costs) {
  const sim::Fabric fabric = launch_fabric(info).fabric;
  costs.bytes_per_cycle = fabric.exchange.send_bytes_per_cycle;
  const std::uint32_t tiles_per_chip =
      tiles_per_chip_for(fabric, static_cast<std::uint32_t>(info.tiles));
  const bool chips = tiles_per_chip < static_cast<std::uint32_t>(info.tiles);
  if (chips)
    costs.tiles_per_chip = tiles_per_chip;
  // The barrier before the returns spans the kernel's tiles: it costs what the engine charges
  // a sync group of that size (it grows with tiles and chips), not a fixed constant.
  const std::uint32_t chip_count =
      (static_cast<std::uint32_t>(info.tiles) + tiles_per_chip - 1) / tiles_per_chip;
  costs.returns_barrier_cycles = static_cast<std::int64_t>(fabric.barrier_cycles(
      std::min<std::uint64_t>(tiles_per_chip, static_cast<std::uint64_t>(info.tiles)), chip_count));
}

} // namespace s2p::rt
