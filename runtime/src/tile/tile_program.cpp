// Runs a multi-tile program (load -> exchange -> compute -> store) on the backend S2P_BACKEND
// names: tile/threads/forall_on_threads.cpp, tile/sim/forall_on_fabric.cpp,
// tile/mpi/mpi_tile_program.cpp.
#include "tile/runners.h"
#include "tile/mpi/mpi_backend.h"

#include <seq2par/runtime.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace s2p::rt {

work_stealing_mode work_stealing_setting() {
  const char* text = std::getenv("S2P_WORK_STEALING");
  if (!text || !*text)
    return work_stealing_mode::off;
  const std::string value = text;
  if (value == "1" || value == "on" || value == "true")
    return work_stealing_mode::cost_model;
  if (value == "greedy")
    return work_stealing_mode::greedy;
  if (value == "0" || value == "off" || value == "false")
    return work_stealing_mode::off;
  throw std::invalid_argument(
      "seq2par: S2P_WORK_STEALING must be 1/on/true, greedy, or 0/off/false, not '" + value + "'");
}

// The same on every backend, so they make the same decisions.
steal_costs work_stealing_costs(const tile_kernel_info& info) {
  steal_costs costs;
  add_fabric_costs(info, costs);
  costs.free_transfers = work_stealing_setting() == work_stealing_mode::greedy;
  costs.fetch_output = !info.output_write_only;
  return costs;
}

std::vector<tile_task_pool> task_pools_of(const tile_kernel_info& info) {
  std::vector<tile_task_pool> pools;
  for (int k = 0; k < info.task_pool_count; ++k)
    pools.push_back({info.task_pools[k].name, info.task_pools[k].element_bytes,
                     info.task_pools[k].bytes});
  return pools;
}

std::vector<tile_code_image> code_images_of(const tile_kernel_info& info) {
  std::vector<tile_code_image> images;
  for (int k = 0; k < info.code_image_count; ++k)
    images.push_back({info.code_images[k].name, info.code_images[k].bytes});
  return images;
}

void run_tile_program(const tile_kernel_info& info, const tile_program& program) {
  dispatch_multi_tile(
      info, [&] { run_forall_on_threads(info, program); },
      [&] { run_tile_program_on_mpi(info, program); },
      [&] { run_forall_on_fabric(info, program); });
}

} // namespace s2p::rt
