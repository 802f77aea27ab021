// The fabric simulator's side of multi-tile launches in a runtime built without the simulator
// (SEQ2PAR_BUILD_SIM=OFF): S2P_BACKEND=sim is refused with a message saying so, never run on
// another backend behind the user's back; tiles all sit on one chip.
#include "tile/runners.h"

#include <stdexcept>
#include <string>

namespace s2p::rt {

namespace {

[[noreturn]] void refuse(const tile_kernel_info& info) {
  throw std::runtime_error(
      std::string("seq2par: kernel '") + info.name +
      "': this runtime was built without the fabric simulator; run with S2P_BACKEND=threads");
}

} // namespace

bool has_fabric_simulator() {
  return false;
}

void run_forall_on_fabric(const tile_kernel_info& info, const tile_program&) {
  refuse(info);
}

void run_collective_on_fabric(const tile_kernel_info& info, const collective_args&) {
  refuse(info);
}

std::vector<int> forall_chips(const tile_kernel_info& info) {
  return std::vector<int>(static_cast<std::size_t>(info.tiles > 0 ? info.tiles : 0), 0);
}

void add_fabric_costs(const tile_kernel_info&, steal_costs&) {}

} // namespace s2p::rt
