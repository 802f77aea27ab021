#include "core/backend_registry.h"
#include "core/refusal.h"
#include "tile/mpi/mpi_backend.h"

#include <cstdlib>
#include <string>

namespace s2p::rt {

namespace {

// Every generated program links this file (it defines run_kernel and backend_name), so what
// follows always runs, in this order, before `main`. A refusal the program does not catch ends
// it with `seq2par: <message>` and exit code 1 (core/refusal.h); under S2P_BACKEND=mpi, MPI
// starts here (see tile/mpi/mpi_backend.h) and its own handler ends the whole job instead.
[[maybe_unused]] const bool refusals_handled = (install_refusal_handler(), true);
[[maybe_unused]] const bool mpi_started = (start_mpi_if_chosen(), true);

} // namespace

std::string backend_name() {
  const char* chosen = std::getenv("S2P_BACKEND");
  const std::string name = (chosen && *chosen) ? chosen : std::string(kDefaultBackend);
  if (name == "threads" || name == "sim")
    return name;
  if (name == "mpi") {
    if (!has_mpi())
      throw std::runtime_error("S2P_BACKEND='mpi', but this runtime was built without MPI "
                               "(install libopenmpi-dev and rebuild seq2par)");
    return name;
  }
  throw std::invalid_argument("S2P_BACKEND='" + name +
                              "' is not a backend; choose 'sim', 'threads' or 'mpi'");
}

// Single-tile (warp-split) kernels have no tiles to deal out: under mpi every rank runs the
// whole kernel on its own threads, so each holds the result without a message.
void run_kernel(const kernel_info& info, const warp_function* warps) {
  const std::string backend = backend_name();
  if (backend == "sim")
    run_on_sim(info, warps);
  else
    run_on_threads(info, warps);
}

} // namespace s2p::rt
