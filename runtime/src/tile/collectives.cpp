// Ring collectives of multi-tile kernels, on the backend S2P_BACKEND names:
// tile/threads/collectives_on_threads.cpp, tile/sim/collectives_on_fabric.cpp,
// tile/mpi/mpi_collectives.cpp.
#include "tile/runners.h"
#include "tile/mpi/mpi_backend.h"

#include <seq2par/runtime.h>

namespace s2p::rt {

void run_collective(const tile_kernel_info& info, const collective_args& args) {
  if (info.tiles == 1)
    return; // one tile: nothing to combine or gather
  dispatch_multi_tile(
      info, [&] { run_collective_on_threads(info, args); },
      [&] { run_collective_on_mpi(info, args); },
      [&] { run_collective_on_fabric(info, args); });
}

} // namespace s2p::rt
