// The backends of multi-tile launches, as the dispatch (tile_program.cpp, collectives.cpp)
// calls them: threads (tile/threads/), the fabric simulator (tile/sim/; in a runtime built
// without it, tile/fabric_unavailable.cpp refuses), mpi (tile/mpi/, see mpi_backend.h).
#pragma once

#include "core/backend_registry.h"

#include <seq2par/runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace s2p::rt {

void run_forall_on_threads(const tile_kernel_info& info, const tile_program& program);
void run_collective_on_threads(const tile_kernel_info& info, const collective_args& args);

void run_forall_on_fabric(const tile_kernel_info& info, const tile_program& program);
void run_collective_on_fabric(const tile_kernel_info& info, const collective_args& args);

// The chip each tile of a launch sits on, on the fabric the launch runs on (S2P_FABRIC or the
// built-in chip); every backend places tiles this way. All 0 without the fabric simulator.
std::vector<int> forall_chips(const tile_kernel_info& info);

// Work stealing's costs from the launch's fabric: exchange rate, chips, the returns' barrier
// (left as they are without the fabric simulator).
void add_fabric_costs(const tile_kernel_info& info, steal_costs& costs);

// Runs `on_threads()`, `on_mpi()` or `on_fabric()` as S2P_BACKEND says.
template <class Threads, class Mpi, class Fabric>
void dispatch_multi_tile(const tile_kernel_info& info, Threads&& on_threads, Mpi&& on_mpi,
                         Fabric&& on_fabric) {
  if (info.tiles < 1)
    throw std::invalid_argument(std::string("seq2par: kernel '") + info.name + "' spans no tiles");
  switch (chosen_backend()) {
  case backend_kind::threads: return on_threads();
  case backend_kind::mpi: return on_mpi();
  case backend_kind::sim: return on_fabric();
  }
}

} // namespace s2p::rt
