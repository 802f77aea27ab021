// How s2p-sim learns that it is one rank of an MPI job (`mpirun -n R s2p-sim run ...`): the
// launcher's environment. Built with MPI (sim/cli/mpi_ranks.cpp) it joins the job; built without
// (sim/cli/no_mpi.cpp) it refuses a job of more than one rank instead of running R copies.
#pragma once

#include <memory>

#include "seq2par/sim/ranks.h"

namespace s2p::sim::cli {

/// The ranks of the job this process belongs to, or null when no MPI launcher started it.
/// Destroying the result leaves the job (MPI_Finalize).
[[nodiscard]] std::unique_ptr<Ranks> join_launched_job();

/// Ends the whole job with `code` after a failure on this rank alone (the others would wait
/// for it forever).
[[noreturn]] void abort_job(int code);

/// The ranks the launcher put on this machine (1 when it says nothing).
[[nodiscard]] unsigned ranks_on_this_host();

} // namespace s2p::sim::cli
