// s2p-sim: the command-line face of the fabric simulator (see `s2p-sim --help`).
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "seq2par/sim/diagnostics.h"

namespace {

int dispatch(const std::vector<std::string>& args) {
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
  if (command == "gen")
    return run_gen(rest);
  if (command == "check")
    return run_check(rest);
  if (command == "resolve")
    return run_resolve(rest);
  if (command == "run")
    return run_run(rest);
  if (command == "html")
    return run_html(rest);
  throw UsageError("unknown command '" + command + "'");
}

} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const s2p::sim::cli::UsageError& error) {
    std::cerr << "s2p-sim: error: " << error.what() << " (see s2p-sim --help)\n";
    return 2;
  } catch (const s2p::sim::IoError& error) {
    std::cerr << "s2p-sim: error: " << error.what() << "\n";
    return 2;
  } catch (const s2p::sim::InputError& error) {
    std::cerr << error.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "s2p-sim: error: out of host memory (try run --timing-only)\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "s2p-sim: internal error: " << error.what() << "\n";
    return 2;
  }
}
