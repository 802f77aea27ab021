// Runs seq2par's front end over the inputs, with the kernel passes as its kernel handler,
// on `jobs` threads when asked. With
// several jobs each file's diagnostics are buffered and printed whole, so messages from
// different files never interleave.
#pragma once

#include "frontend/transpile_action.h"
#include "pass_manager/kernel_passes.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace s2p::driver {

// One diagnostic as Clang reported it, for the machine-readable account of a run.
struct ReportedDiagnostic {
  std::string level; // "error", "warning", "note", "remark"
  std::string file;  // empty when it has no location
  unsigned line = 0, column = 0;
  std::string message;
};

// One input after the front end and the kernel passes.
struct TranspiledFile {
  std::string input;        // absolute
  std::string display_name; // relative to the input root
  bool ok = false;          // parsed and transpiled without errors
  std::string output;       // the generated .par.cpp (empty if no kernel body was replaced)
  std::vector<pass_manager::KernelSummary> kernels;
  std::vector<std::string> dependencies; // every file the compile read
};

struct ToolRunResult {
  std::vector<TranspiledFile> files;
  bool tool_failed = false; // a file could not be parsed at all
  // Per input (as given in `sources`): what Clang reported while transpiling it.
  std::map<std::string, std::vector<ReportedDiagnostic>> diagnostics;
};

// Sees each kernel's IR as the front end hands it over, before the passes (`seq2par tune`
// reads the plan the kernel has as written from it).
using KernelObserver = std::function<void(const ir::Kernel&)>;

ToolRunResult run_tools(const clang::tooling::CompilationDatabase& compilations,
                        const std::vector<std::string>& sources,
                        const std::vector<clang::tooling::ArgumentsAdjuster>& adjusters,
                        const pass_manager::TranspileOptions& options,
                        const frontend::TranspileActionFactory::DisplayName& display_name, int jobs,
                        bool progress, const KernelObserver& observe = {});

} // namespace s2p::driver
