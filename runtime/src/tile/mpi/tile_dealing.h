// Which MPI rank runs which tiles of a multi-tile launch. Pure arithmetic, no MPI.
//
// Ranks take contiguous runs of tiles. When the launch's fabric (S2P_FABRIC, or the built-in
// default chip repeated) puts the tiles on at least as many chips as there are ranks at work,
// whole chips are dealt, in contiguous runs: each chip one rank's, so chip-to-chip traffic is
// what crosses ranks. With fewer chips than ranks (a 4-tile kernel on one default chip under
// `mpirun -n 4`), the tiles themselves are split into equal contiguous runs. With more ranks
// than tiles the extra ranks get no tiles: they only take part in the gather of the result.
#pragma once

#include <vector>

namespace s2p::rt::mpi {

class tile_dealing {
public:
  // `chip_of_tile`: the chip of each tile (non-decreasing), `ranks`: the job's size.
  tile_dealing(const std::vector<int>& chip_of_tile, int ranks);

  int first(int rank) const { return first_[static_cast<std::size_t>(rank)]; }
  int end(int rank) const { return first_[static_cast<std::size_t>(rank) + 1]; }
  int owner(int tile) const; // the rank that runs `tile`
  int ranks() const { return static_cast<int>(first_.size()) - 1; }

private:
  std::vector<int> first_; // rank r runs tiles [first_[r], first_[r + 1])
};

} // namespace s2p::rt::mpi
