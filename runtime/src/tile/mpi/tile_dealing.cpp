#include "tile/mpi/tile_dealing.h"

#include <algorithm>
#include <stdexcept>

namespace s2p::rt::mpi {

tile_dealing::tile_dealing(const std::vector<int>& chip_of_tile, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("seq2par: an MPI job needs at least one rank");
  const int tiles = static_cast<int>(chip_of_tile.size());
  const int busy = std::max(1, std::min(ranks, tiles)); // ranks that get tiles
  const int chips = tiles == 0 ? 0 : chip_of_tile.back() + 1;
  first_.assign(static_cast<std::size_t>(ranks) + 1, tiles);
  for (int r = 0; r < busy; ++r) {
    if (chips >= busy) { // whole chips: rank r's first chip, then its first tile
      const int chip = static_cast<int>(static_cast<long long>(r) * chips / busy);
      first_[static_cast<std::size_t>(r)] = static_cast<int>(
          std::lower_bound(chip_of_tile.begin(), chip_of_tile.end(), chip) -
          chip_of_tile.begin());
    } else {
      first_[static_cast<std::size_t>(r)] =
          static_cast<int>(static_cast<long long>(r) * tiles / busy);
    }
  }
}

int tile_dealing::owner(int tile) const {
  // The last rank whose run starts at or before `tile` and is not empty.
  const auto after = std::upper_bound(first_.begin(), first_.end() - 1, tile);
  int rank = static_cast<int>(after - first_.begin()) - 1;
  while (rank > 0 && first(rank) == end(rank))
    --rank;
  return rank;
}

} // namespace s2p::rt::mpi
