// The MPI job this process belongs to under S2P_BACKEND=mpi: MPI's lifetime (initialized
// before `main`, finalized at exit), this rank, the runtime's own communicator, and ending
// the whole job when any rank fails.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace s2p::rt::mpi {

struct session {
  int rank = 0;
  int size = 1;
  // A duplicate of MPI_COMM_WORLD: the runtime's messages never match a program's own.
  MPI_Comm comm = MPI_COMM_NULL;
  // MPI_THREAD_MULTIPLE: the watchdog thread may call MPI_Abort itself.
  bool any_thread_may_abort = false;
  // Whether any rank's program asked for a report or summary (run_report_wanted): then every
  // rank sends its numbers to rank 0 after each launch.
  bool report_wanted = false;
};

// The session, starting MPI on first use.
const session& current();

// "seq2par: rank R of N: <message>" on stderr, then MPI_Abort: every rank of the job ends
// within seconds, whatever the others are blocked in. Safe from any thread.
[[noreturn]] void abort_job(const std::string& message);

// Runs a multi-tile launch; an exception from it ends the job (abort_job), naming the kernel:
// the other ranks would otherwise wait forever for this rank.
void run_or_abort_job(const char* kernel, const std::function<void()>& launch);

// Fails with `what` (an MPI error code) as a runtime_error naming the call.
void check(int code, const char* call);

} // namespace s2p::rt::mpi
