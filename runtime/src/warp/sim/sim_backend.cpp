// The `sim` backend: the warps of a kernel run as the hardware threads of one simulated
// tile (sim/tile), sharing its memory. Each warp still runs on its own host thread, but
// only one holds the baton at a time: a warp runs until it waits on a channel whose
// signal has not happened yet (or finishes), then the runnable warp with the earliest
// virtual clock takes over. Results are the real computation; times are the model's, and
// do not depend on host scheduling. When every unfinished warp is blocked, that is a
// deadlock: reported with each warp's position and channel, never a hang. When the kernel
// declares what its sites touch, a missing synchronization is a race_error (race_checker.h).
#include "core/backend_registry.h"
#include "warp/sim/race_checker.h"
#include "core/run_report.h"
#include "warp/sim/tile_params.h"
#include "warp/progress_report.h"

#include <seq2par/runtime.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace s2p::rt {
namespace {

struct kernel_aborted {};

std::vector<sim::tile::ChannelKind> channel_kinds(const kernel_info& info) {
  std::vector<sim::tile::ChannelKind> kinds(info.channel_count + 1,
                                            sim::tile::ChannelKind::Resource);
  for (int c = 1; c <= info.channel_count && info.channel_kinds && info.channel_kinds[c - 1]; ++c) {
    if (info.channel_kinds[c - 1] == 'd')
      kinds[c] = sim::tile::ChannelKind::Data;
    if (info.channel_kinds[c - 1] == 'f')
      kinds[c] = sim::tile::ChannelKind::Fence;
  }
  return kinds;
}

std::vector<int> warp_ids(const kernel_info& info) {
  std::vector<int> ids;
  for (int w = 0; w < info.warp_count; ++w)
    ids.push_back(info.warp_ids ? info.warp_ids[w] : w);
  return ids;
}

class sim_kernel {
public:
  sim_kernel(const kernel_info& info, const sim::tile::TileParams& params)
      : info_(info),
        model_(params, warp_ids(info), channel_kinds(info), std::getenv("S2P_TRACE") != nullptr),
        states_(info.warp_count) {
    if (race_check_enabled(info))
      races_.emplace(info);
  }

  void run(const warp_function* warps);
  const sim::tile::TileThreads& model() const { return model_; }
  // What the race check compared (null: not checked).
  nlohmann::ordered_json race_report() const {
    return races_ ? races_->report_json() : nlohmann::ordered_json();
  }

  void wait(int w, int channel, std::int64_t phase, int site);
  void signal(int w, int channel);
  void step(int w, int site, std::int64_t cycles);
  void skip(int site) {
    std::lock_guard lock(mutex_);
    if (races_)
      races_->on_skip(site);
  }

private:
  void check_channel(int channel) const {
    if (channel < 1 || channel > info_.channel_count)
      throw std::logic_error("s2p runtime: channel " + std::to_string(channel) + " outside 1.." +
                             std::to_string(info_.channel_count) + " in kernel '" + info_.name +
                             "'");
  }
  std::string label(int site) const {
    return site >= 0 && site < info_.site_count && info_.sites ? info_.sites[site].label : "call";
  }
  // Gives the baton to the runnable warp with the earliest clock; detects deadlock.
  void hand_off_locked();
  void abort_locked(std::exception_ptr error) {
    if (!error_)
      error_ = std::move(error);
    aborted_ = true;
    wake_.notify_all();
  }
  void warp_main(int w, const warp_function& fn);

  const kernel_info& info_;
  sim::tile::TileThreads model_;
  std::optional<race_checker> races_; // a fresh one per launch
  std::vector<warp_state> states_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int running_ = -1;
  bool aborted_ = false;
  std::exception_ptr error_;
};

class sim_warp final : public warp {
public:
  sim_warp(sim_kernel& kernel, int index, int id) : kernel_(kernel), index_(index), id_(id) {}
  void wait(int channel, std::int64_t phase, int site) override {
    kernel_.wait(index_, channel, phase, site);
  }
  void signal(int channel) override { kernel_.signal(index_, channel); }
  void step(int site, std::int64_t cycles) override { kernel_.step(index_, site, cycles); }
  void skip(int site) override { kernel_.skip(site); }
  int id() const override { return id_; }

private:
  sim_kernel& kernel_;
  int index_;
  int id_;
};

void sim_kernel::hand_off_locked() {
  int next = -1;
  for (int w = 0; w < info_.warp_count; ++w) {
    if (states_[w].status != warp_status::running)
      continue;
    if (next < 0 || model_.clock(w) < model_.clock(next))
      next = w;
  }
  running_ = next;
  if (next < 0 && !aborted_) {
    bool blocked = false;
    for (const auto& s : states_)
      blocked |= s.status == warp_status::blocked;
    if (blocked) {
      std::vector<warp_snapshot> snapshots;
      for (int w = 0; w < info_.warp_count; ++w) {
        const auto& s = states_[w];
        snapshots.push_back({info_.warp_ids ? info_.warp_ids[w] : w, s.status, s.last_site.load(),
                             s.channel, s.phase,
                             s.status == warp_status::blocked ? model_.signals(s.channel) : 0});
      }
      abort_locked(std::make_exception_ptr(deadlock_error(describe_warps(
          info_, snapshots, "sim",
          "deadlock: every unfinished warp waits on a channel that no warp can signal"))));
    }
  }
  wake_.notify_all();
}

void sim_kernel::wait(int w, int channel, std::int64_t phase, int site) {
  check_channel(channel);
  std::unique_lock lock(mutex_);
  auto& state = states_[w];
  state.last_site.store(site);
  while (true) {
    if (aborted_)
      throw kernel_aborted{};
    if (model_.try_wait(w, channel, phase)) {
      if (races_)
        races_->on_wait(w, channel, phase);
      return;
    }
    state.status = warp_status::blocked;
    state.channel = channel;
    state.phase = phase;
    hand_off_locked();
    wake_.wait(lock, [&] { return running_ == w || aborted_; });
  }
}

void sim_kernel::signal(int w, int channel) {
  check_channel(channel);
  std::lock_guard lock(mutex_);
  model_.signal(w, channel);
  if (races_)
    races_->on_signal(w, channel);
  for (auto& s : states_)
    if (s.status == warp_status::blocked && s.channel == channel &&
        model_.signals(channel) >= s.phase)
      s.status = warp_status::running; // runnable again; it resumes when it gets the baton
}

void sim_kernel::step(int w, int site, std::int64_t cycles) {
  std::lock_guard lock(mutex_);
  states_[w].last_site.store(site);
  model_.compute(w, label(site), cycles);
  if (races_) // throws race_error, which fails the launch like an intrinsic's exception
    races_->on_step(w, site);
}

void sim_kernel::warp_main(int w, const warp_function& fn) {
  sim_warp handle(*this, w, info_.warp_ids ? info_.warp_ids[w] : w);
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return running_ == w || aborted_; });
    if (aborted_) {
      states_[w].status = warp_status::finished;
      return;
    }
  }
  try {
    fn.invoke(fn.closure, handle);
  } catch (const kernel_aborted&) {
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard lock(mutex_);
  states_[w].status = warp_status::finished;
  if (error)
    abort_locked(std::move(error));
  if (running_ == w)
    hand_off_locked();
}

void sim_kernel::run(const warp_function* warps) {
  {
    std::lock_guard lock(mutex_);
    for (auto& s : states_)
      s.status = warp_status::running;
    hand_off_locked();
  }
  std::vector<std::thread> threads;
  threads.reserve(info_.warp_count);
  for (int w = 0; w < info_.warp_count; ++w)
    threads.emplace_back([this, w, warps] { warp_main(w, warps[w]); });
  for (auto& t : threads)
    t.join();
  if (error_)
    std::rethrow_exception(error_);
}

} // namespace

void run_on_sim(const kernel_info& info, const warp_function* warps) {
  if (info.warp_count <= 0)
    return;
  const sim::tile::TileParams params = tile_params_from_environment();
  if (info.pool_bytes > params.sram_bytes)
    throw std::runtime_error(std::string("seq2par: kernel '") + info.name + "' needs " +
                             std::to_string(info.pool_bytes) +
                             " bytes of pool memory but a tile has " +
                             std::to_string(params.sram_bytes) + " bytes of SRAM");
  std::unique_ptr<sim_kernel> kernel;
  try {
    kernel = std::make_unique<sim_kernel>(info, params);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("seq2par: kernel '") + info.name + "': " + e.what());
  }
  kernel->run(warps);
  record_sim_launch(info, kernel->model(), params, kernel->race_report());
  // A launch inside a multi-tile task: the tile's compute phase takes the pipeline's time.
  if (detail::warp_cycles_sink* sink = detail::current_warp_cycles) {
    sink->cycles += kernel->model().makespan();
    ++sink->launches;
  }
}

} // namespace s2p::rt
