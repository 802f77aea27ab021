#include "core/backend_registry.h"
#include "core/refusal.h"
#include "tile/mpi/mpi_backend.h"

#include <cstdlib>
#include <stdexcept>
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

std::string_view name_of(backend_kind kind) {
  switch (kind) {
  case backend_kind::sim: return "sim";
  case backend_kind::threads: return "threads";
  case backend_kind::mpi: return "mpi";
  }
  return "?";
}

std::optional<backend_kind> backend_in_environment() {
  const char* chosen = std::getenv("S2P_BACKEND");
  if (!chosen || !*chosen)
    return kDefaultBackend;
  for (const backend_kind kind : {backend_kind::sim, backend_kind::threads, backend_kind::mpi})
    if (name_of(kind) == chosen)
      return kind;
  return std::nullopt;
}

backend_kind chosen_backend() {
  const std::optional<backend_kind> kind = backend_in_environment();
  if (!kind)
    throw std::invalid_argument(std::string("S2P_BACKEND='") + std::getenv("S2P_BACKEND") +
                                "' is not a backend; choose 'sim', 'threads' or 'mpi'");
  if (*kind == backend_kind::mpi && !has_mpi())
    throw std::runtime_error("S2P_BACKEND='mpi', but this runtime was built without MPI "
                             "(install libopenmpi-dev and rebuild seq2par)");
  return *kind;
}

std::string backend_name() { return std::string(name_of(chosen_backend())); }

// Single-tile (warp-split) kernels have no tiles to deal out: under mpi every rank runs the
// whole kernel on its own threads, so each holds the result without a message.
void run_kernel(const kernel_info& info, const warp_function* warps) {
  if (chosen_backend() == backend_kind::sim)
    run_on_sim(info, warps);
  else
    run_on_threads(info, warps);
}

} // namespace s2p::rt
