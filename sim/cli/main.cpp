// s2p-sim: the command-line face of the fabric simulator (see `s2p-sim --help`).
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "seq2par/sim/diagnostics.h"

namespace {

int dispatch(const std::vector<std::string>& args, s2p::sim::Ranks* ranks) {
  using namespace s2p::sim::cli;
  if (args.empty()) {
    std::cerr << usage();
    return 2;
  }
  const std::string& command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h") {
    std::cout << usage();
    return 0;
  }
  if (command == "help") {
    std::cout << usage(rest.empty() ? "" : rest.front());
    return 0;
  }
  if (command == "--version") {
    std::cout << "s2p-sim " << S2P_SIM_VERSION
              << " (seq2par.schedule/1, seq2par.fabric/1, seq2par.sim-report/1)\n";
    return 0;
  }
  for (const auto& arg : rest) {
    if (arg == "--help" || arg == "-h") {
      std::cout << usage(command);
      return 0;
    }
  }
  if (command == "run")
    return run_run(rest, ranks);
  if (ranks != nullptr && ranks->rank() != 0) {
    return 0; // only `run` is distributed: the other commands run on rank 0 alone
  }
  if (command == "gen")
    return run_gen(rest);
  if (command == "check")
    return run_check(rest);
  if (command == "resolve")
    return run_resolve(rest);
  if (command == "html")
    return run_html(rest);
  throw UsageError("unknown command '" + command + "'");
}

/// Errors that every rank of a distributed run meets alike (they come from the same input, the
/// same arguments and the same computation): rank 0 reports them and every rank exits with the
/// same code. Anything else may have happened on one rank alone and ends the whole job.
int run(const std::vector<std::string>& args, s2p::sim::Ranks* ranks) {
  const bool quiet = ranks != nullptr && ranks->rank() != 0;
  try {
    return dispatch(args, ranks);
  } catch (const s2p::sim::cli::UsageError& error) {
    if (!quiet)
      std::cerr << "s2p-sim: error: " << error.what() << " (see s2p-sim --help)\n";
    return 2;
  } catch (const s2p::sim::IoError& error) {
    if (!quiet)
      std::cerr << "s2p-sim: error: " << error.what() << "\n";
    return 2;
  } catch (const s2p::sim::InputError& error) {
    if (!quiet)
      std::cerr << error.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "s2p-sim: error: out of host memory (try run --timing-only)\n";
  } catch (const std::exception& error) {
    std::cerr << "s2p-sim: internal error: " << error.what() << "\n";
  }
  if (ranks != nullptr && ranks->size() > 1) {
    std::cerr << "s2p-sim: rank " << ranks->rank() << " of " << ranks->size()
              << " failed alone: ending the job\n";
    s2p::sim::cli::abort_job(2);
  }
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::unique_ptr<s2p::sim::Ranks> ranks;
  try {
    ranks = s2p::sim::cli::join_launched_job();
  } catch (const s2p::sim::cli::UsageError& error) {
    std::cerr << "s2p-sim: error: " << error.what() << "\n";
    return 2;
  }
  return run(args, ranks.get());
}
