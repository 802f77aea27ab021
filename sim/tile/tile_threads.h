// The hardware threads of one simulated tile running the cooperative warps of a kernel.
//
// Cost model (explicit, like Poplar's IPUModel): each warp is one hardware thread with
// its own issue slot (a barrel-threaded tile: warps don't slow each other down). A warp's
// clock advances by each intrinsic's cost (S2P_COST, default the elements it touches), by
// `signal_cycles` per signal and `wait_cycles` per wait; a wait for the k-th signal on a
// channel completes no earlier than that signal's time + `sync_latency`.
//
// Alongside the real clock every warp keeps an "ideal" clock that only honours program
// order, data channels and region fences (not buffer reuse, not synchronization costs):
// its maximum is the dependency critical path, the lower bound a schedule is measured
// against together with the busiest warp's total cost.
//
// The model only does bookkeeping; whoever runs the warps (the runtime's sim backend)
// calls it in a happens-before-consistent order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <seq2par/sim/machine_defaults.h>

namespace s2p::sim::tile {

using sim::kDefaultHardwareThreads;
using sim::kDefaultTileSramBytes;

struct TileParams {
  int hardware_threads = static_cast<int>(kDefaultHardwareThreads);
  std::int64_t sram_bytes = static_cast<std::int64_t>(kDefaultTileSramBytes);
  std::int64_t signal_cycles = 1;
  std::int64_t wait_cycles = 1;
  std::int64_t sync_latency = 2;

  nlohmann::ordered_json to_json() const;
};

enum class ChannelKind { Data, Resource, Fence };
const char* to_string(ChannelKind kind);

struct WaitStats {
  std::int64_t waits = 0;   // waits on this channel
  std::int64_t blocked = 0; // of which had to wait for their signal
  std::int64_t cycles = 0;  // time spent blocked on this channel
};

struct WarpStats {
  int id = 0;
  std::int64_t clock = 0;
  std::int64_t ideal_clock = 0;
  std::int64_t busy = 0;    // intrinsic cycles
  std::int64_t sync = 0;    // cycles issuing signals and waits
  std::int64_t waiting = 0; // cycles blocked
  std::int64_t calls = 0;
  std::map<int, WaitStats> waits_by_channel;
};

struct TraceEvent {
  int warp = 0;
  std::string name;
  std::string category; // "call" or "wait"
  std::int64_t start = 0;
  std::int64_t duration = 0;
};

class TileThreads {
public:
  TileThreads(TileParams params, const std::vector<int>& warp_ids,
              std::vector<ChannelKind> channel_kinds, bool keep_trace);

  // If the `phase`-th signal on `channel` has happened, completes the wait (advancing the
  // warp's clock) and returns true; otherwise returns false and changes nothing.
  bool try_wait(int warp, int channel, std::int64_t phase);
  void signal(int warp, int channel);
  void compute(int warp, const std::string& label, std::int64_t cycles);

  std::int64_t signals(int channel) const {
    return static_cast<std::int64_t>(channels_.at(channel).size());
  }
  const WarpStats& warp(int index) const { return warps_.at(index); }
  std::int64_t clock(int warp) const { return warps_.at(warp).clock; }

  std::int64_t makespan() const;
  std::int64_t busiest_warp() const;  // max over warps of intrinsic cycles
  std::int64_t critical_path() const; // max ideal clock
  std::int64_t lower_bound() const { return std::max(busiest_warp(), critical_path()); }

  // Report of this launch (see docs/runtime.md for its fields).
  nlohmann::ordered_json report() const;
  const std::vector<TraceEvent>& trace() const { return trace_; }
  bool trace_truncated() const { return trace_truncated_; }

private:
  struct SignalTime {
    std::int64_t real;
    std::int64_t ideal;
  };
  void record(int warp, std::string name, const char* category, std::int64_t start,
              std::int64_t duration);

  TileParams params_;
  std::vector<WarpStats> warps_;
  std::vector<ChannelKind> kinds_;                // index = channel number (0 unused)
  std::vector<std::vector<SignalTime>> channels_; // signal times per channel, in order
  std::vector<TraceEvent> trace_;
  bool keep_trace_;
  bool trace_truncated_ = false;
};

} // namespace s2p::sim::tile
