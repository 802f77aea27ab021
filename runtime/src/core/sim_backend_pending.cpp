// The simulator backend for warp-split kernels is not built yet (issue 4). Until it is,
// asking for it is a clear error rather than a silent fallback to another backend.
#include "core/backend_registry.h"

namespace s2p::rt {

void run_on_sim(const kernel_info& info, const warp_function*) {
  throw std::runtime_error(std::string("seq2par: kernel '") + info.name +
                           "': the 'sim' backend for warp-split kernels is not available in this build yet; "
                           "run with S2P_BACKEND=threads");
}

} // namespace s2p::rt
