// What the multi-tile runners share: choosing the backend for a multi-tile launch, and
// turning the fabric simulator's errors into an exception.
#pragma once

#include "core/backend_registry.h"

#include <seq2par/runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#if S2P_HAVE_FABRIC_SIM
#include <seq2par/tile_schedules.h>
#include <seq2par/sim/simulation.h>
#endif

namespace s2p::rt {

// Runs `on_threads()`, `on_mpi()` or `on_fabric()` as S2P_BACKEND says.
template <class Threads, class Mpi, class Fabric>
void dispatch_multi_tile(const tile_kernel_info& info, Threads&& on_threads, Mpi&& on_mpi,
                         [[maybe_unused]] Fabric&& on_fabric) {
  if (info.tiles < 1)
    throw std::invalid_argument(std::string("seq2par: kernel '") + info.name + "' spans no tiles");
  const std::string backend = backend_name();
  if (backend == "threads")
    return on_threads();
  if (backend == "mpi")
    return on_mpi();
#if S2P_HAVE_FABRIC_SIM
  on_fabric();
#else
  throw std::runtime_error(
      std::string("seq2par: kernel '") + info.name +
      "': this runtime was built without the fabric simulator; run with S2P_BACKEND=threads");
#endif
}

#if S2P_HAVE_FABRIC_SIM
// The fabric a multi-tile launch runs on: the file S2P_FABRIC names, or the built-in
// default chip repeated as many times as the kernel's tiles need (as `s2p-sim` does without
// --fabric). A kernel spanning more tiles than a given fabric has is an error naming both.
struct launch_fabric_choice {
  sim::Fabric fabric;
  std::string file; // empty: the built-in default
};
launch_fabric_choice launch_fabric(const tile_kernel_info& info);

// Host threads the fabric simulator uses: S2P_SIM_THREADS, or 0 (the machine's cores).
unsigned fabric_sim_threads();
#endif

// The chip each tile of a forall launch sits on (all 0 without the fabric simulator).
std::vector<int> forall_chips(const tile_kernel_info& info);

#if S2P_HAVE_FABRIC_SIM

inline void throw_on_errors(const sim::Simulation& simulation, const char* kernel) {
  if (!simulation.diagnostics().has_errors())
    return;
  std::string messages;
  for (const auto& d : simulation.diagnostics().items())
    messages += "\n  " + d.message;
  throw std::runtime_error(std::string("seq2par: kernel '") + kernel +
                           "' on the fabric simulator:" + messages);
}
#endif

} // namespace s2p::rt
