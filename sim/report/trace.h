// Chrome/Perfetto trace (the JSON "traceEvents" format): one process per chip with one track per
// traced tile plus one for its XB, and a "program" process with one track per sync group.
// Timestamps are cycles: 1 us in the viewer = 1 cycle.
//
// Thousands of tiles times thousands of supersteps would be gigabytes, so only the tiles chosen
// (default: the first 32) get tracks, and recording stops at `max_events` (noted in the file).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/schedule.h"

namespace s2p::sim::detail {

class TraceRecorder {
public:
  TraceRecorder(const Schedule& schedule, std::vector<TileId> tiles, std::size_t max_events);

  [[nodiscard]] bool traced(TileId tile) const {
    return tile < selected_.size() && selected_[tile] != 0;
  }
  /// A span on a tile's track ("compute", "sync", "exchange"); empty spans are skipped.
  void tile_span(TileId tile, const char* what, Cycles start, Cycles end, std::uint32_t superstep);
  void superstep_span(int group, const std::string& name, Cycles start, Cycles end,
                      std::uint32_t superstep);
  void xb_grant(std::uint32_t chip, TileId tile, Cycles start, Cycles end);
  void xb_queue(std::uint32_t chip, Cycles time, std::uint32_t occupancy);

  /// Writes the whole trace; group names index by group + 1 (0 = "all").
  void write(std::ostream& out, const std::vector<std::string>& group_names) const;

private:
  struct Event {
    char phase; ///< 'X' span, 'C' counter
    std::uint32_t pid;
    std::uint64_t tid;
    Cycles ts;
    Cycles dur;
    std::string name;
    std::int64_t superstep; ///< -1: none
    std::int64_t value;     ///< counter value or granted tile
  };
  bool room();

  const Schedule& schedule_;
  std::vector<TileId> tiles_;
  std::vector<char> selected_;
  std::size_t max_events_;
  bool truncated_ = false;
  std::vector<Event> events_;
  std::vector<char> xb_used_;
  std::vector<char> group_used_;
};

} // namespace s2p::sim::detail
