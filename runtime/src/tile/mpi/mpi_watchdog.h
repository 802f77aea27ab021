// The `mpi` backend's watchdog, as on `threads`: while a launch waits on other ranks, a
// thread ends the job if the wait lasts longer than S2P_WATCHDOG_SECONDS (default 120,
// 0 disables), naming the rank, the kernel and what it waited for. A rank that fails
// aborts the job itself; this catches waits that nothing would ever end.
#pragma once

#include <string>

namespace s2p::rt::mpi {

// Armed while it lives. One thread, started on first use and kept, watches every wait (a
// thread per wait cost a launch about 0.2 ms); a watchdog made while another is armed (a wait
// inside a wait) leaves the outer one watching.
class watchdog {
public:
  watchdog(std::string kernel, std::string waiting_for);
  ~watchdog(); // disarms it
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

private:
  bool armed_ = false;
};

} // namespace s2p::rt::mpi
