#include "tile/mpi/mpi_watchdog.h"

#include "core/watchdog_setting.h"
#include "tile/mpi/mpi_session.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace s2p::rt::mpi {

watchdog::watchdog(std::string kernel, std::string waiting_for)
    : kernel_(std::move(kernel)), waiting_for_(std::move(waiting_for)) {
  if (const int seconds = watchdog_seconds(); seconds > 0)
    thread_ = std::thread([this, seconds] { watch(seconds); });
}

watchdog::~watchdog() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  done_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void watchdog::watch(int seconds) {
  std::unique_lock lock(mutex_);
  if (done_.wait_for(lock, std::chrono::seconds(seconds), [this] { return finished_; }))
    return;
  const std::string message = "kernel '" + kernel_ + "' on the mpi backend: no progress for " +
                              std::to_string(seconds) + " s waiting for " + waiting_for_ +
                              " (S2P_WATCHDOG_SECONDS)";
  if (current().any_thread_may_abort)
    abort_job(message);
  // MPI_Abort is only safe from the main thread here: end this rank, and mpirun the job.
  std::fprintf(stderr, "seq2par: rank %d of %d: %s\n", current().rank, current().size,
               message.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

} // namespace s2p::rt::mpi
