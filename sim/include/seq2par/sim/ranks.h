// The ranks of a distributed run (`mpirun -n R s2p-sim run ...`): the simulator's only view of
// the message layer, so that the library itself never depends on MPI. `s2p-sim` implements it
// over MPI (sim/cli/mpi_ranks.cpp, when MPI is found); tests implement it over threads.
//
// A distributed run deals tiles to ranks (whole chips where there are at least as many chips as
// ranks, see `rank_tiles`): a rank keeps the contents of its own tiles' buffers and resolves a
// share of every superstep's tiles; everything else, the timing model included, is computed by
// every rank from the same gathered lists, so every rank holds the same report (sim/README.md,
// "Distributed engine").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "seq2par/sim/diagnostics.h"

namespace s2p::sim {

class Ranks {
public:
  virtual ~Ranks() = default;
  [[nodiscard]] virtual unsigned rank() const = 0;
  [[nodiscard]] virtual unsigned size() const = 0;

  /// Every rank's `mine`, in rank order. Every rank calls it, in the same order.
  [[nodiscard]] virtual std::vector<std::vector<std::byte>>
  all_gather(std::span<const std::byte> mine) = 0;
  /// `to[r]` goes to rank r (one entry per rank); returns what each rank sent to this one, in
  /// rank order. Every rank calls it, in the same order.
  [[nodiscard]] virtual std::vector<std::vector<std::byte>>
  all_to_all(const std::vector<std::vector<std::byte>>& to) = 0;
  /// One message to one rank; messages between two ranks arrive in the order they were sent.
  virtual void send(unsigned to, std::span<const std::byte> bytes) = 0;
  [[nodiscard]] virtual std::vector<std::byte> receive(unsigned from) = 0;
};

/// The tiles rank `rank` of `ranks` owns, [begin, end): whole chips, a near-equal number per
/// rank, when the schedule has at least as many chips as there are ranks; else a near-equal
/// contiguous share of the tiles.
struct TileRange {
  TileId begin = 0;
  TileId end = 0;
  [[nodiscard]] bool contains(TileId tile) const { return tile >= begin && tile < end; }
};
[[nodiscard]] TileRange rank_tiles(std::uint32_t tiles, std::uint32_t chips,
                                   std::uint32_t tiles_per_chip, unsigned ranks, unsigned rank);

} // namespace s2p::sim
