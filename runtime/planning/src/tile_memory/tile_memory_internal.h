// Shared by the allocator's translation units: the peak of a tile's live bytes and the
// out-of-memory verdict built from it.
#pragma once

#include <seq2par/planning/tile_memory.h>

namespace s2p::rt {

// The largest sum of simultaneously live bytes on a tile (the lower bound of any layout's
// size), the first superstep where it occurs, and the variables live there, biggest first.
struct live_peak {
  std::uint64_t bytes = 0;
  std::uint32_t superstep = 0;
  std::vector<variable_id> live_set;
};
live_peak peak_live(std::span<const tile_variable> variables, std::span<const variable_id> on_tile);

tile_out_of_memory out_of_memory_verdict(const memory_problem& problem, std::uint32_t tile,
                                         std::span<const variable_id> on_tile,
                                         const live_peak& peak, std::vector<variable_id> unplaced);

} // namespace s2p::rt
