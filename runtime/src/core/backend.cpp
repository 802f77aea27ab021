#include "core/backend_registry.h"

#include <cstdlib>
#include <string>

namespace s2p::rt {

std::string backend_name() {
  const char* chosen = std::getenv("S2P_BACKEND");
  const std::string name = (chosen && *chosen) ? chosen : std::string(kDefaultBackend);
  if (name == "threads" || name == "sim")
    return name;
  throw std::invalid_argument("S2P_BACKEND='" + name +
                              "' is not a backend; choose 'sim' or 'threads'");
}

void run_kernel(const kernel_info& info, const warp_function* warps) {
  if (backend_name() == "sim")
    run_on_sim(info, warps);
  else
    run_on_threads(info, warps);
}

} // namespace s2p::rt
