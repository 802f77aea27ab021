// The `mpi` backend of a runtime built without MPI (CMake found none, or SEQ2PAR_WITH_MPI
// is off): S2P_BACKEND=mpi is refused with a message saying so, never run on another
// backend behind the user's back.
#include "tile/mpi/mpi_backend.h"

#include <stdexcept>
#include <string>

namespace s2p::rt {

namespace {

[[noreturn]] void refuse(const tile_kernel_info& info) {
  throw std::runtime_error(std::string("seq2par: kernel '") + info.name +
                           "': S2P_BACKEND=mpi, but this runtime was built without MPI "
                           "(install libopenmpi-dev and rebuild seq2par)");
}

} // namespace

bool has_mpi() {
  return false;
}

void start_mpi_if_chosen() {}

bool is_reporting_process() {
  return true;
}

void run_tile_program_on_mpi(const tile_kernel_info& info, const tile_program&) {
  refuse(info);
}

void run_collective_on_mpi(const tile_kernel_info& info, const collective_args&) {
  refuse(info);
}

void enter_kernel_on_ranks() {}
void leave_kernel_on_ranks(const tile_kernel_info&) {}
void gather_kept_results_on_ranks(const tile_kernel_info&) {}

void run_parts_on_ranks(const tile_kernel_info& info, std::int64_t, const rank_parts&) {
  refuse(info);
}

} // namespace s2p::rt
