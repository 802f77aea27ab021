// What the fabric simulator's runners share: the fabric a launch runs on, and the
// simulator's errors as an exception.
#pragma once

#include <seq2par/runtime.h>
#include <seq2par/sim/simulation.h>

#include <stdexcept>
#include <string>

namespace s2p::rt {

// The fabric a multi-tile launch runs on: the file S2P_FABRIC names, or the built-in
// default chip repeated as many times as the kernel's tiles need (as `s2p-sim` does without
// --fabric). A kernel spanning more tiles than a given fabric has is an error naming both.
struct launch_fabric_choice {
  sim::Fabric fabric;
  std::string file; // empty: the built-in default
};
launch_fabric_choice launch_fabric(const tile_kernel_info& info);

// Host threads the fabric simulator uses: S2P_SIM_THREADS, or 0 (the machine's cores).
unsigned fabric_sim_threads();

inline void throw_on_errors(const sim::Simulation& simulation, const char* kernel) {
  if (!simulation.diagnostics().has_errors())
    return;
  std::string messages;
  for (const auto& d : simulation.diagnostics().items())
    messages += "\n  " + d.message;
  throw std::runtime_error(std::string("seq2par: kernel '") + kernel +
                           "' on the fabric simulator:" + messages);
}

} // namespace s2p::rt
