// A multi-tile kernel's call as generated code opens it (<seq2par/runtime.h>): what the mpi
// backend keeps on its ranks lives until the outermost call ends.
#include "tile/mpi/mpi_backend.h"

#include <seq2par/runtime.h>

namespace s2p::rt {

kernel_scope::kernel_scope(const tile_kernel_info& info) : info_(info) {
  enter_kernel_on_ranks();
}

kernel_scope::~kernel_scope() {
  leave_kernel_on_ranks(info_);
}

void gather_kept_results(const tile_kernel_info& info) {
  gather_kept_results_on_ranks(info);
}

} // namespace s2p::rt
