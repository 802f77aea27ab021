// The `threads` backend: every warp on its own host thread, channels as monotonic
// counters. A blocked warp first spins briefly (channels are fine-grained and usually
// signalled soon), then sleeps on a condition variable. Deadlock is detected exactly:
// when every unfinished warp is asleep on a channel whose count is below its phase,
// nobody can ever signal again. A watchdog also reports a kernel that makes no progress
// for S2P_WATCHDOG_SECONDS (default 120, 0 disables).
#include "core/backend_registry.h"
#include "core/watchdog_setting.h"
#include "warp/progress_report.h"
#include "warp/threads/warp_thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define S2P_CPU_RELAX() _mm_pause()
#else
#define S2P_CPU_RELAX() std::this_thread::yield()
#endif

namespace s2p::rt {
namespace {

// One cache line per channel: channels are written by different warps.
struct alignas(64) channel_counter {
  std::atomic<std::int64_t> signals{0};
};

// Unwinds a warp whose kernel was aborted (another warp threw, or deadlock).
struct kernel_aborted {};

class threads_kernel {
public:
  threads_kernel(const kernel_info& info)
      : info_(info), channels_(info.channel_count + 1), states_(info.warp_count),
        spin_budget_(static_cast<unsigned>(info.warp_count) <=
                             std::max(1u, std::thread::hardware_concurrency())
                         ? 4096
                         : 0) {
    for (auto& state : states_)
      state.status = warp_status::running;
    live_ = info.warp_count;
  }

  void run(const warp_function* warps);

  // --- called by warps ---
  void wait(int warp_index, int channel, std::int64_t phase, int site);
  void signal(int channel);
  void step(int warp_index, int site) {
    states_[warp_index].last_site.store(site, std::memory_order_relaxed);
    progress_.fetch_add(1, std::memory_order_relaxed);
  }

private:
  void check_channel(int channel) const {
    if (channel < 1 || channel > info_.channel_count)
      throw std::logic_error("s2p runtime: channel " + std::to_string(channel) + " outside 1.." +
                             std::to_string(info_.channel_count) + " in kernel '" + info_.name +
                             "'");
  }
  void warp_main(int warp_index, const warp_function& fn);
  void finish_warp(int warp_index, std::exception_ptr error);
  void abort_locked(std::exception_ptr error);
  void check_deadlock_locked();
  std::vector<warp_snapshot> snapshot_locked() const;
  void watch();

  const kernel_info& info_;
  std::vector<channel_counter> channels_;
  std::vector<warp_state> states_;
  const int spin_budget_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  int live_ = 0;
  bool aborted_ = false;
  std::exception_ptr first_error_;
  std::atomic<std::uint64_t> progress_{0};
  std::condition_variable all_done_;
};

class thread_warp final : public warp {
public:
  thread_warp(threads_kernel& kernel, int index, int id)
      : kernel_(kernel), index_(index), id_(id) {}
  void wait(int channel, std::int64_t phase, int site) override {
    kernel_.wait(index_, channel, phase, site);
  }
  void signal(int channel) override { kernel_.signal(channel); }
  void step(int site, std::int64_t) override { kernel_.step(index_, site); }
  int id() const override { return id_; }

private:
  threads_kernel& kernel_;
  int index_;
  int id_;
};

void threads_kernel::wait(int warp_index, int channel, std::int64_t phase, int site) {
  check_channel(channel);
  auto& counter = channels_[channel].signals;
  if (counter.load(std::memory_order_acquire) >= phase)
    return;
  // Spin briefly only when every warp has a core of its own; otherwise spinning takes the
  // core away from the warp that would signal.
  for (int spin = 0; spin < spin_budget_; ++spin) {
    S2P_CPU_RELAX();
    if (counter.load(std::memory_order_acquire) >= phase)
      return;
  }
  std::unique_lock lock(mutex_);
  auto& state = states_[warp_index];
  state.channel = channel;
  state.phase = phase;
  state.last_site.store(site, std::memory_order_relaxed);
  state.status = warp_status::blocked;
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while (!aborted_ && counter.load(std::memory_order_seq_cst) < phase) {
    check_deadlock_locked();
    if (aborted_)
      break;
    wake_.wait(lock);
  }
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  state.status = warp_status::running;
  if (aborted_ && counter.load(std::memory_order_acquire) < phase)
    throw kernel_aborted{};
  progress_.fetch_add(1, std::memory_order_relaxed);
}

void threads_kernel::signal(int channel) {
  check_channel(channel);
  channels_[channel].signals.fetch_add(1, std::memory_order_seq_cst);
  progress_.fetch_add(1, std::memory_order_relaxed);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard lock(mutex_);
    wake_.notify_all();
  }
}

std::vector<warp_snapshot> threads_kernel::snapshot_locked() const {
  std::vector<warp_snapshot> warps;
  for (int i = 0; i < info_.warp_count; ++i) {
    const auto& state = states_[i];
    warp_snapshot snap{
        info_.warp_ids ? info_.warp_ids[i] : i, state.status, state.last_site.load(), 0, 0, 0};
    if (state.status == warp_status::blocked) {
      snap.channel = state.channel;
      snap.phase = state.phase;
      snap.channel_count = channels_[state.channel].signals.load();
    }
    warps.push_back(snap);
  }
  return warps;
}

// Called with the mutex held, by a warp about to sleep or by a warp that finished.
void threads_kernel::check_deadlock_locked() {
  if (aborted_)
    return;
  for (const auto& state : states_) {
    if (state.status == warp_status::running)
      return;
    if (state.status == warp_status::blocked &&
        channels_[state.channel].signals.load() >= state.phase)
      return;
  }
  if (live_ == 0)
    return;
  const std::string report =
      describe_warps(info_, snapshot_locked(), "threads",
                     "deadlock: every unfinished warp waits on a channel that no running warp "
                     "can signal");
  abort_locked(std::make_exception_ptr(deadlock_error(report)));
}

void threads_kernel::abort_locked(std::exception_ptr error) {
  if (!first_error_)
    first_error_ = std::move(error);
  aborted_ = true;
  wake_.notify_all();
}

void threads_kernel::finish_warp(int warp_index, std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  states_[warp_index].status = warp_status::finished;
  --live_;
  if (error)
    abort_locked(std::move(error));
  check_deadlock_locked();
  all_done_.notify_all();
}

void threads_kernel::warp_main(int warp_index, const warp_function& fn) {
  thread_warp handle(*this, warp_index, info_.warp_ids ? info_.warp_ids[warp_index] : warp_index);
  std::exception_ptr error;
  try {
    fn.invoke(fn.closure, handle);
  } catch (const kernel_aborted&) {
    // Another warp failed first; its error is the one reported.
  } catch (...) {
    error = std::current_exception();
  }
  finish_warp(warp_index, std::move(error));
}


// The launching thread is the watchdog: it waits for the warps and, if none of them
// makes progress for the configured time, reports where each one is and exits.
void threads_kernel::watch() {
  const int limit = watchdog_seconds();
  std::unique_lock lock(mutex_);
  std::uint64_t last_progress = progress_.load();
  auto last_change = std::chrono::steady_clock::now();
  while (live_ > 0) {
    all_done_.wait_for(lock, std::chrono::milliseconds(200));
    const std::uint64_t now_progress = progress_.load();
    const auto now = std::chrono::steady_clock::now();
    if (now_progress != last_progress) {
      last_progress = now_progress;
      last_change = now;
    } else if (limit > 0 && live_ > 0 && now - last_change > std::chrono::seconds(limit)) {
      const std::string report = describe_warps(
          info_, snapshot_locked(), "threads",
          "no warp made progress for " + std::to_string(limit) + " s (S2P_WATCHDOG_SECONDS)");
      std::fprintf(stderr, "%s\n", report.c_str());
      std::fflush(stderr);
      std::_Exit(3); // warps may be stuck inside user code; they cannot be unwound
    }
  }
}

// The warps run on pooled threads (kept between launches) while this thread watches them;
// `warps` returns once every warp has returned.
void threads_kernel::run(const warp_function* warps) {
  {
    pooled_jobs running(info_.warp_count, [this, warps](int i) { warp_main(i, warps[i]); });
    watch();
  }
  if (first_error_)
    std::rethrow_exception(first_error_);
}

} // namespace

void run_on_threads(const kernel_info& info, const warp_function* warps) {
  if (info.warp_count <= 0)
    return;
  threads_kernel kernel(info);
  kernel.run(warps);
}

} // namespace s2p::rt
