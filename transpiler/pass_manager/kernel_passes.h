// The kernel passes: one kernel's IR, as the front end extracted it, through every stage
// to the text of its new body. A warp kernel goes through the warp-split passes (CDFG ->
// CDRFG -> redundant edges -> channels -> warps, see passes/warp_split.h), a multi-tile
// kernel through schedule planning; then emit prints the body and the requested dumps are
// made. Plain C++: problems are reported into ir::Diagnostics at IR locations, which the
// front end turns into Clang diagnostics at the construct.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace s2p::pass_manager {

// What the driver says about a kernel and writes beside the generated file.
struct KernelSummary {
  std::string name;
  int warps = 0;
  int channels = 0;
  int calls = 0; // intrinsic calls, or a multi-tile kernel's steps
  int tiles = 0; // multi-tile kernels
  // (file name suffix, content): "<kernel>.cdfg.json", "<kernel>.schedule.json", ...
  std::vector<std::pair<std::string, std::string>> files;
  // Warp kernels: operations (calls, waits, signals) per warp, ascending warp number, summed
  // over regions and versions: what a composed task's code estimate counts.
  std::vector<std::int64_t> warp_operations;
};

struct KernelOutput {
  std::optional<std::string> body; // the new body, braces included; none: leave it as written
  KernelSummary summary;
};

// `declared_at` is where errors about the kernel as a whole are reported (its name).
// Returns nothing when it reported an error.
std::optional<KernelOutput> run_kernel_passes(const ir::Kernel& kernel,
                                                const ir::SourceLocation& declared_at,
                                                const TranspileOptions& options,
                                                const std::string& display_name,
                                                ir::Diagnostics& diags);

} // namespace s2p::pass_manager
