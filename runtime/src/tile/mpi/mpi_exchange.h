// How a rank's tiles of a forall hold their fields, and how their bytes cross ranks: a
// superstep's moves (within the rank: copies; between ranks: one non-blocking message per
// pair of ranks, the pair's moves packed in plan order) and the gather of the output.
#pragma once

#include "tile/mpi/mpi_session.h"
#include "tile/mpi/tile_dealing.h"

#include <seq2par/tile_program.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace s2p::rt::mpi {

// What one rank sent to other ranks in one superstep.
struct superstep_traffic {
  std::int64_t bytes_sent = 0;
  std::int64_t messages = 0;
};

// The tile buffers of one rank. The output (field 0) is held for every tile, tile after
// tile, so the gather can fill in the other ranks' tiles in place; the inputs only for the
// rank's own tiles.
class rank_buffers {
public:
  rank_buffers(const tile_program& program, const tile_dealing& deal, int rank);

  std::byte* at(int tile, int field);
  tile_memory memory(int tile);
  std::byte* output() { return output_.data(); }
  std::int64_t output_offset(int tile) const {
    return output_offset_[static_cast<std::size_t>(tile)];
  }

private:
  std::vector<std::byte> output_;
  std::vector<std::int64_t> output_offset_; // per tile, and the total at the end
  std::vector<std::vector<std::vector<std::byte>>> inputs_; // [tile - first][field - 1]
  int first_, end_;
};

// Runs one superstep's moves: every rank calls it with the same moves. Messages are
// posted before any is waited for, so no order of ranks can deadlock; `tag` keeps
// supersteps apart.
superstep_traffic exchange(const std::vector<tile_move>& moves, const tile_dealing& deal,
                           rank_buffers& buffers, const session& s, int tag);

// Every rank gets every tile's output buffer (MPI_Allgatherv).
superstep_traffic gather_output(const tile_dealing& deal, rank_buffers& buffers, const session& s);

// MPI counts are ints: a message over 2 GiB is refused rather than truncated.
int message_count(std::int64_t bytes);

} // namespace s2p::rt::mpi
