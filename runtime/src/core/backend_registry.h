// Backends a generated kernel can run on, selected by S2P_BACKEND at run time.
#pragma once

#include <seq2par/runtime.h>

#include <optional>
#include <string_view>

namespace s2p::rt {

// Each backend runs all warps of one kernel invocation to completion.
void run_on_threads(const kernel_info& info, const warp_function* warps);
void run_on_sim(const kernel_info& info, const warp_function* warps);

// The backends, as S2P_BACKEND names them (name_of).
enum class backend_kind { sim, threads, mpi };
inline constexpr backend_kind kDefaultBackend = backend_kind::sim;
std::string_view name_of(backend_kind kind);

// The backend S2P_BACKEND names (the default when it is unset or empty); nullopt for a name
// no backend has. Throws nothing, so MPI's start-up can ask before anything is handled.
std::optional<backend_kind> backend_in_environment();

// The backend S2P_BACKEND selects; throws on a name no backend has, and on mpi when this
// runtime was built without MPI (backend_name() is its name).
backend_kind chosen_backend();

} // namespace s2p::rt
