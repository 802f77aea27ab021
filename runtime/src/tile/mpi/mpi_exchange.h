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

// The tile buffers of one rank. The fields the forall writes -- the output (field 0) and a
// fused forall's further outputs (tile_field::written) -- are held for every tile, tile after
// tile, so the gather can fill in the other ranks' tiles in place and every rank can store
// every tile's blocks; the fields it only reads, for the rank's own tiles alone.
class rank_buffers {
public:
  rank_buffers(const tile_program& program, const tile_dealing& deal, int rank);

  std::byte* at(int tile, int field);
  tile_memory memory(int tile);

  // A written field's buffers, every tile's one after the other.
  struct whole_field {
    int field = 0;
    std::vector<std::byte> bytes;
    std::vector<std::int64_t> offset; // per tile, and the total at the end
  };
  std::vector<whole_field>& written() { return written_; }

private:
  whole_field* written_field(int field);
  std::vector<whole_field> written_;
  std::vector<std::vector<std::vector<std::byte>>> read_; // [tile - first][field]; written: empty
  int first_, end_;
};

// Runs one superstep's moves: every rank calls it with the same moves. Messages are
// posted before any is waited for, so no order of ranks can deadlock; `tag` keeps
// supersteps apart.
superstep_traffic exchange(const std::vector<tile_move>& moves, const tile_dealing& deal,
                           rank_buffers& buffers, const session& s, int tag);

// Every rank gets every tile's buffers of the fields the forall writes (MPI_Allgatherv).
superstep_traffic gather_output(const tile_dealing& deal, rank_buffers& buffers, const session& s);

// MPI counts are ints: a message over 2 GiB is refused rather than truncated.
int message_count(std::int64_t bytes);

} // namespace s2p::rt::mpi
