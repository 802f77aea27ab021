// Runs seq2par's frontend action over the inputs, on `jobs` threads when asked. With
// several jobs each file's diagnostics are buffered and printed whole, so messages from
// different files never interleave.
#pragma once

#include "frontend/transpile_action.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>

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

struct ToolRunResult {
  std::vector<frontend::FileResult> files;
  bool tool_failed = false; // a file could not be parsed at all
  // Per input (as given in `sources`): what Clang reported while transpiling it.
  std::map<std::string, std::vector<ReportedDiagnostic>> diagnostics;
};

ToolRunResult run_tools(const clang::tooling::CompilationDatabase& compilations,
                        const std::vector<std::string>& sources,
                        const std::vector<clang::tooling::ArgumentsAdjuster>& adjusters,
                        const frontend::TranspileOptions& options,
                        const frontend::TranspileActionFactory::DisplayName& display_name, int jobs,
                        bool progress);

} // namespace s2p::driver
