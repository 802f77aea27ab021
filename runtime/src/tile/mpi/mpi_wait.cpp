#include "tile/mpi/mpi_wait.h"

#include "tile/mpi/mpi_session.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace s2p::rt::mpi {

void wait_all(std::vector<MPI_Request>& requests) {
  // Messages usually arrive within microseconds of each other: poll first, then back off
  // from 20 us to 1 ms between polls (at most that much latency added to a long wait).
  constexpr int kPolls = 2000;
  constexpr auto kLongestSleep = std::chrono::microseconds(1000);
  auto sleep = std::chrono::microseconds(20);
  for (int poll = 0;; ++poll) {
    int done = 0;
    check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (done)
      return;
    if (poll >= kPolls) {
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(kLongestSleep));
    }
  }
}

} // namespace s2p::rt::mpi
