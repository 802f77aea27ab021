// What the rest of the runtime sees of the `mpi` backend (S2P_BACKEND=mpi): whether this
// runtime was built with MPI, starting MPI before `main`, and the two multi-tile launches.
// Built from mpi_*.cpp when CMake found MPI, from mpi_unavailable.cpp otherwise, so no
// other file of the runtime includes <mpi.h> or depends on whether MPI is there.
#pragma once

#include <seq2par/runtime.h>

namespace s2p::rt {

// Whether this runtime was built with MPI.
bool has_mpi();

// With S2P_BACKEND=mpi: initializes MPI and keeps only rank 0's standard output (unless
// S2P_MPI_ALL_OUTPUT=1). Runs during static initialization, before the user's `main`
// prints anything; does nothing for other backends or without MPI.
void start_mpi_if_chosen();

// Whether this process writes S2P_REPORT and prints S2P_SUMMARY: rank 0 under mpi, always
// otherwise (every rank records the same launches; one copy is enough).
bool is_reporting_process();

// A forall / a ring collective with its tiles dealt to the MPI ranks. On return every
// rank's fields hold the whole result.
void run_tile_program_on_mpi(const tile_kernel_info& info, const tile_program& program);

// A multi-tile kernel's call (kernel_scope): entering one, and leaving it (the outermost gives
// every rank the whole of the results kept on the ranks); and that gather before a launch that
// needs every field whole. No MPI call while nothing is kept (other backends keep nothing).
void enter_kernel_on_ranks();
void leave_kernel_on_ranks(const tile_kernel_info& info);
void gather_kept_results_on_ranks(const tile_kernel_info& info);
void run_collective_on_mpi(const tile_kernel_info& info, const collective_args& args);

} // namespace s2p::rt
