// The `mpi` backend's watchdog, as on `threads`: while a launch waits on other ranks, a
// thread ends the job if the wait lasts longer than S2P_WATCHDOG_SECONDS (default 120,
// 0 disables), naming the rank, the kernel and what it waited for. A rank that fails
// aborts the job itself; this catches waits that nothing would ever end.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace s2p::rt::mpi {

class watchdog {
public:
  watchdog(std::string kernel, std::string waiting_for);
  ~watchdog(); // disarms it
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

private:
  void watch(int seconds);

  std::string kernel_, waiting_for_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

} // namespace s2p::rt::mpi
