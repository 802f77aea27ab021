// s2p-sim built without MPI: a single process only.
#include <cstdlib>
#include <string>

#include "cli/args.h"
#include "cli/launch.h"
#include "cli/launch_env.h"

namespace s2p::sim::cli {

std::unique_ptr<Ranks> join_launched_job() {
  if (const auto size = launched_job_size(); size && *size > 1) {
    throw UsageError("this s2p-sim was built without MPI, so it cannot run as one of " +
                     std::to_string(*size) +
                     " ranks (install libopenmpi-dev and rebuild, or run it without mpirun)");
  }
  return nullptr;
}

void abort_job(int code) {
  std::exit(code);
}

unsigned ranks_on_this_host() {
  return 1;
}

} // namespace s2p::sim::cli
