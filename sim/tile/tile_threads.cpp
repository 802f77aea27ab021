#include "tile_threads.h"

#include <algorithm>
#include <stdexcept>

namespace s2p::sim::tile {

namespace {
constexpr std::size_t kMaxTraceEvents = 200'000;
}

nlohmann::ordered_json TileParams::to_json() const {
  return {{"hardware_threads", hardware_threads},
          {"sram_bytes", sram_bytes},
          {"signal_cycles", signal_cycles},
          {"wait_cycles", wait_cycles},
          {"sync_latency", sync_latency}};
}

const char* to_string(ChannelKind kind) {
  switch (kind) {
  case ChannelKind::Data:
    return "data";
  case ChannelKind::Resource:
    return "resource";
  case ChannelKind::Fence:
    return "fence";
  }
  return "?";
}

TileThreads::TileThreads(TileParams params, const std::vector<int>& warp_ids,
                         std::vector<ChannelKind> channel_kinds, bool keep_trace)
    : params_(params), kinds_(std::move(channel_kinds)), channels_(kinds_.size()),
      keep_trace_(keep_trace) {
  if (static_cast<int>(warp_ids.size()) > params_.hardware_threads)
    throw std::runtime_error("the kernel has " + std::to_string(warp_ids.size()) +
                             " warps but a tile has " + std::to_string(params_.hardware_threads) +
                             " hardware threads");
  for (int id : warp_ids) {
    WarpStats stats;
    stats.id = id;
    warps_.push_back(stats);
  }
}

void TileThreads::record(int warp, std::string name, const char* category, std::int64_t start,
                         std::int64_t duration) {
  if (!keep_trace_ || duration <= 0)
    return;
  if (trace_.size() >= kMaxTraceEvents) {
    trace_truncated_ = true;
    return;
  }
  trace_.push_back({warp, std::move(name), category, start, duration});
}

bool TileThreads::try_wait(int warp, int channel, std::int64_t phase) {
  WarpStats& w = warps_.at(warp);
  if (phase <= 0)
    return true;
  const auto& times = channels_.at(channel);
  if (static_cast<std::int64_t>(times.size()) < phase)
    return false;
  const SignalTime& signal = times[phase - 1];
  const std::int64_t ready = signal.real + params_.sync_latency;
  auto& stats = w.waits_by_channel[channel];
  ++stats.waits;
  if (ready > w.clock) {
    const std::int64_t blocked = ready - w.clock;
    record(warp, "wait ch" + std::to_string(channel) + " #" + std::to_string(phase), "wait",
           w.clock, blocked);
    w.waiting += blocked;
    stats.cycles += blocked;
    ++stats.blocked;
    w.clock = ready;
  }
  w.clock += params_.wait_cycles;
  w.sync += params_.wait_cycles;
  if (kinds_.at(channel) != ChannelKind::Resource)
    w.ideal_clock = std::max(w.ideal_clock, signal.ideal);
  return true;
}

void TileThreads::signal(int warp, int channel) {
  WarpStats& w = warps_.at(warp);
  w.clock += params_.signal_cycles;
  w.sync += params_.signal_cycles;
  channels_.at(channel).push_back({w.clock, w.ideal_clock});
}

void TileThreads::compute(int warp, const std::string& label, std::int64_t cycles) {
  WarpStats& w = warps_.at(warp);
  cycles = std::max<std::int64_t>(cycles, 0);
  record(warp, label, "call", w.clock, cycles);
  w.clock += cycles;
  w.ideal_clock += cycles;
  w.busy += cycles;
  ++w.calls;
}

std::int64_t TileThreads::makespan() const {
  std::int64_t end = 0;
  for (const auto& w : warps_)
    end = std::max(end, w.clock);
  return end;
}

std::int64_t TileThreads::busiest_warp() const {
  std::int64_t most = 0;
  for (const auto& w : warps_)
    most = std::max(most, w.busy);
  return most;
}

std::int64_t TileThreads::critical_path() const {
  std::int64_t longest = 0;
  for (const auto& w : warps_)
    longest = std::max(longest, w.ideal_clock);
  return longest;
}

nlohmann::ordered_json TileThreads::report() const {
  const std::int64_t span = makespan();
  const std::int64_t bound = lower_bound();
  nlohmann::ordered_json warps = nlohmann::ordered_json::array();
  for (const auto& w : warps_) {
    nlohmann::ordered_json waits = nlohmann::ordered_json::array();
    for (const auto& [channel, stats] : w.waits_by_channel)
      waits.push_back({{"channel", channel},
                       {"kind", to_string(kinds_.at(channel))},
                       {"waits", stats.waits},
                       {"blocked", stats.blocked},
                       {"cycles", stats.cycles}});
    warps.push_back(
        {{"warp", w.id},
         {"busy_cycles", w.busy},
         {"sync_cycles", w.sync},
         {"waiting_cycles", w.waiting},
         {"idle_after_finish", span - w.clock},
         {"calls", w.calls},
         {"utilization", span > 0 ? static_cast<double>(w.busy) / static_cast<double>(span) : 0.0},
         {"waits", waits}});
  }
  return {
      {"makespan", span},
      {"lower_bound",
       {{"value", bound},
        {"busiest_warp", busiest_warp()},
        {"critical_path", critical_path()},
        {"definition", "max(max over warps of intrinsic cycles, longest path over program order, "
                       "data channels and region fences)"}}},
      {"ratio", bound > 0 ? static_cast<double>(span) / static_cast<double>(bound) : 1.0},
      {"warps", warps}};
}

} // namespace s2p::sim::tile
