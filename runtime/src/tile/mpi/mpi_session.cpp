// MPI's lifetime for the `mpi` backend. MPI starts during static initialization (from
// core/backend.cpp), before the user's `main` can print, so ranks other than 0 can have
// their standard output dropped from the start; `mpirun -n R ./foo` then prints exactly
// what `./foo` prints. An uncaught exception on any rank ends the whole job (MPI_Abort)
// instead of leaving the other ranks blocked in a message that never comes.
#include "core/backend_registry.h"
#include "core/refusal.h"
#include "core/run_report.h"
#include "tile/mpi/mpi_backend.h"
#include "tile/mpi/mpi_session.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

namespace s2p::rt::mpi {

namespace {

bool chosen() { return backend_in_environment() == backend_kind::mpi; }

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

// Every rank runs the same program and prints the same lines: keep rank 0's.
void drop_standard_output() {
  std::fflush(stdout);
  const int null = ::open("/dev/null", O_WRONLY);
  if (null < 0)
    return;
  ::dup2(null, STDOUT_FILENO);
  ::close(null);
}

// A refusal of the runtime's (core/refusal.h) in its own words, anything else as uncaught.
std::string describe_current_exception() {
  try {
    const auto error = std::current_exception();
    if (!error)
      return "std::terminate called without an exception";
    if (const auto refusal = runtime_refusal(error))
      return *refusal;
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return std::string("uncaught exception: ") + e.what();
  } catch (...) {
    return "uncaught exception of a type not derived from std::exception";
  }
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

session start() {
  session s;
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    std::atexit(finalize_at_exit);
  } else {
    MPI_Query_thread(&provided); // the program started MPI itself
  }
  s.any_thread_may_abort = provided >= MPI_THREAD_MULTIPLE;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
  // Errors come back as codes (check()) so the message can name the kernel and the rank.
  MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
  // Agreed by every rank: mpirun may not give every host the same environment.
  int wanted = run_report_wanted() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &wanted, 1, MPI_INT, MPI_LOR, s.comm);
  s.report_wanted = wanted != 0;
  if (s.rank != 0 && !env_flag("S2P_MPI_ALL_OUTPUT"))
    drop_standard_output();
  std::set_terminate([] { abort_job(describe_current_exception()); });
  return s;
}

} // namespace

const session& current() {
  static const session instance = start();
  return instance;
}

void run_or_abort_job(const char* kernel, const std::function<void()>& launch) {
  try {
    launch();
  } catch (const std::exception& e) {
    abort_job(std::string("kernel '") + kernel + "' on the mpi backend: " + e.what());
  } catch (...) {
    abort_job(std::string("kernel '") + kernel + "' on the mpi backend: an exception of a type "
              "not derived from std::exception");
  }
}

void abort_job(const std::string& message) {
  static std::mutex once; // two failing threads: one message, one abort
  std::lock_guard lock(once);
  const session& s = current();
  std::fprintf(stderr, "seq2par: rank %d of %d: %s\n", s.rank, s.size, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1); // MPI_Abort does not return; this is for the compiler and odd MPIs
}

void check(int code, const char* call) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, length));
}

} // namespace s2p::rt::mpi

namespace s2p::rt {

bool has_mpi() {
  return true;
}

void start_mpi_if_chosen() {
  if (mpi::chosen())
    mpi::current();
}

bool is_reporting_process() {
  return !mpi::chosen() || mpi::current().rank == 0;
}

} // namespace s2p::rt
