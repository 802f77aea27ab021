// What a multi-tile launch on mpi reports (S2P_REPORT / S2P_SUMMARY): each rank's wall time
// and tiles, the bytes each superstep sent between ranks, and the launch's own details
// (owner-copy accounting, the collective). Gathered to rank 0, which writes the report.
#pragma once

#include "tile/mpi/mpi_exchange.h"
#include "tile/mpi/mpi_session.h"
#include "tile/mpi/tile_dealing.h"

#include <seq2par/runtime.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace s2p::rt::mpi {

struct launch_traffic {
  double wall_seconds = 0;
  std::vector<std::pair<std::string, superstep_traffic>> supersteps; // same names on every rank
};

// What each rank computed, [first, last) of `what`: its tiles (the tile program, collectives)
// or, in place, its parts of the output's rows or blocks.
struct rank_share {
  std::string what;
  std::function<std::pair<std::int64_t, std::int64_t>(int rank)> of;
};
inline rank_share tiles_of(const tile_dealing& deal) {
  return {"tiles", [&deal](int rank) {
            return std::pair<std::int64_t, std::int64_t>{deal.first(rank), deal.end(rank)};
          }};
}

// Collective: every rank calls it after the launch.
void record_launch(const tile_kernel_info& info, const rank_share& share, const session& s,
                   const launch_traffic& mine, const nlohmann::ordered_json& details);

// Collective: at the end of a multi-tile kernel whose results were kept on the ranks, the
// gather that gave every rank the whole of them (an entry of the report, not a launch).
void record_kernel_end(const tile_kernel_info& info, const session& s, const launch_traffic& mine);

} // namespace s2p::rt::mpi
