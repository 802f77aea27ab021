#include "report/trace.h"

#include <nlohmann/json.hpp>

namespace s2p::sim::detail {

namespace {

using Json = nlohmann::ordered_json;

// Track ids of the per-chip XB and the per-group program tracks sit far above tile ids.
constexpr std::uint64_t kXbTid = 1ULL << 32;

} // namespace

TraceRecorder::TraceRecorder(const Schedule& schedule, std::vector<TileId> tiles,
                             std::size_t max_events)
    : schedule_(schedule), tiles_(std::move(tiles)), selected_(schedule.tiles, 0),
      max_events_(max_events), xb_used_(schedule.chips, 0),
      group_used_(schedule.groups.size() + 1, 0) {
  for (const TileId t : tiles_) {
    if (t < schedule.tiles) {
      selected_[t] = 1;
    }
  }
}

bool TraceRecorder::room() {
  if (events_.size() < max_events_) {
    return true;
  }
  truncated_ = true;
  return false;
}

void TraceRecorder::tile_span(TileId tile, const char* what, Cycles start, Cycles end,
                              std::uint32_t superstep) {
  if (end <= start || !traced(tile) || !room()) {
    return;
  }
  events_.push_back({'X', schedule_.chip_of(tile), tile, start, end - start, what, superstep, 0});
}

void TraceRecorder::superstep_span(int group, const std::string& name, Cycles start, Cycles end,
                                   std::uint32_t superstep) {
  if (!room()) {
    return;
  }
  group_used_[static_cast<std::size_t>(group) + 1] = 1;
  events_.push_back({'X', schedule_.chips, static_cast<std::uint64_t>(group + 1), start,
                     end - start, name, superstep, 0});
}

void TraceRecorder::xb_grant(std::uint32_t chip, TileId tile, Cycles start, Cycles end) {
  if (!room()) {
    return;
  }
  xb_used_[chip] = 1;
  events_.push_back(
      {'X', chip, kXbTid, start, end - start, "XON tile " + std::to_string(tile), -1, tile});
}

void TraceRecorder::xb_queue(std::uint32_t chip, Cycles time, std::uint32_t occupancy) {
  if (!room()) {
    return;
  }
  xb_used_[chip] = 1;
  events_.push_back({'C', chip, kXbTid, time, 0, "XB queue", -1, occupancy});
}

void TraceRecorder::write(std::ostream& out, const std::vector<std::string>& group_names) const {
  // Streamed event by event: a trace can be far larger than is comfortable as one JSON value.
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
      << Json{{"generator", "s2p-sim"},
              {"time_unit", "1 us on the timeline = 1 simulated cycle"},
              {"kernel", schedule_.kernel},
              {"traced_tiles", tiles_.size()},
              {"truncated", truncated_}}
             .dump()
      << ",\"traceEvents\":[\n";
  bool first = true;
  const auto put = [&](const Json& event) {
    out << (first ? "" : ",\n") << event.dump();
    first = false;
  };
  const auto metadata = [&](const char* kind, std::uint32_t pid, std::optional<std::uint64_t> tid,
                            const std::string& name, std::uint64_t sort) {
    Json event{{"ph", "M"}, {"pid", pid}};
    if (tid) {
      event["tid"] = *tid;
    }
    event["name"] = kind;
    event["args"] = {{"name", name}};
    put(event);
    Json order{{"ph", "M"}, {"pid", pid}};
    if (tid) {
      order["tid"] = *tid;
    }
    order["name"] = tid ? "thread_sort_index" : "process_sort_index";
    order["args"] = {{"sort_index", sort}};
    put(order);
  };
  for (std::uint32_t c = 0; c < schedule_.chips; ++c) {
    metadata("process_name", c, std::nullopt, "chip " + std::to_string(c), c + 1);
    if (xb_used_[c] != 0) {
      metadata("thread_name", c, kXbTid, "XB (chip " + std::to_string(c) + ")", 0);
    }
  }
  metadata("process_name", schedule_.chips, std::nullopt, "program (supersteps)", 0);
  for (std::size_t g = 0; g < group_used_.size(); ++g) {
    if (group_used_[g] != 0) {
      metadata("thread_name", schedule_.chips, g, "sync group " + group_names[g], g);
    }
  }
  for (const TileId t : tiles_) {
    if (t < schedule_.tiles) {
      metadata("thread_name", schedule_.chip_of(t), t, "tile " + std::to_string(t), t + 1);
    }
  }
  for (const Event& e : events_) {
    Json event{{"ph", std::string(1, e.phase)}, {"pid", e.pid}, {"tid", e.tid}, {"ts", e.ts}};
    if (e.phase == 'X') {
      event["dur"] = e.dur;
    }
    event["name"] = e.name;
    if (e.phase == 'C') {
      event["args"] = {{"packets", e.value}};
    } else if (e.superstep >= 0) {
      event["args"] = {{"superstep", e.superstep}};
    }
    put(event);
  }
  out << "\n]}\n";
}

} // namespace s2p::sim::detail
