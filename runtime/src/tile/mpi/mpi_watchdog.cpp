#include "tile/mpi/mpi_watchdog.h"

#include "core/watchdog_setting.h"
#include "tile/mpi/mpi_session.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace s2p::rt::mpi {

namespace {

// The watching thread and what it watches: the armed wait's deadline and description.
class monitor {
public:
  // Returns false when a wait is already armed (it keeps watching).
  bool arm(std::chrono::seconds limit, std::string kernel, std::string waiting_for) {
    std::lock_guard lock(mutex_);
    if (armed_)
      return false;
    if (!thread_started_) {
      std::thread([this] { watch(); }).detach(); // lives as long as the process
      thread_started_ = true;
    }
    armed_ = true;
    limit_ = limit;
    deadline_ = std::chrono::steady_clock::now() + limit;
    kernel_ = std::move(kernel);
    waiting_for_ = std::move(waiting_for);
    changed_.notify_all();
    return true;
  }
  void disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
    changed_.notify_all();
  }

private:
  [[noreturn]] void watch() {
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [this] { return armed_; });
      if (changed_.wait_until(lock, deadline_, [this] { return !armed_; }))
        continue;
      expire();
    }
  }
  [[noreturn]] void expire() {
    const std::string message = "kernel '" + kernel_ + "' on the mpi backend: no progress for " +
                                std::to_string(limit_.count()) + " s waiting for " + waiting_for_ +
                                " (S2P_WATCHDOG_SECONDS)";
    if (current().any_thread_may_abort)
      abort_job(message);
    // MPI_Abort is only safe from the main thread here: end this rank, and mpirun the job.
    std::fprintf(stderr, "seq2par: rank %d of %d: %s\n", current().rank, current().size,
                 message.c_str());
    std::fflush(stderr);
    std::_Exit(3);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool thread_started_ = false, armed_ = false;
  std::chrono::seconds limit_{0};
  std::chrono::steady_clock::time_point deadline_;
  std::string kernel_, waiting_for_;
};

// Never destroyed: its thread may still wait on it while the program's statics are destroyed.
monitor& the_monitor() {
  static monitor* const m = new monitor;
  return *m;
}

} // namespace

watchdog::watchdog(std::string kernel, std::string waiting_for) {
  if (const int seconds = watchdog_seconds(); seconds > 0)
    armed_ = the_monitor().arm(std::chrono::seconds(seconds), std::move(kernel),
                               std::move(waiting_for));
}

watchdog::~watchdog() {
  if (armed_)
    the_monitor().disarm();
}

} // namespace s2p::rt::mpi
