// The machine-readable account of a run (--report=FILE): every input marked transpiled,
// skipped (why), up to date, refused (where, why) or not written (why), with its kernels
// and diagnostics. It says what happened, never more: an input that transpiled in a run that
// wrote nothing is "not_written". A FILE ending in .sarif gets the diagnostics as SARIF 2.1.0,
// which IDEs and CI services read.
#pragma once

#include "driver/run_tools.h"

#include <string>
#include <vector>

namespace s2p::driver {

enum class InputStatus { Transpiled, Skipped, UpToDate, Refused, NotWritten };

struct KernelAccount {
  std::string name;
  int tiles = 0; // multi-tile kernels; 0 for warp-split ones
  int warps = 0, channels = 0, calls = 0;
};

struct InputAccount {
  std::string file;
  InputStatus status = InputStatus::Skipped;
  std::string reason;               // why skipped, refused or not written
  std::vector<std::string> outputs; // files written for it
  std::vector<KernelAccount> kernels;
  std::vector<ReportedDiagnostic> diagnostics;
};

struct RunAccount {
  std::string tool_version;
  std::vector<InputAccount> inputs;
  bool written = false; // the outputs were written
};

// Writes the account to `path` (SARIF if it ends in .sarif, else JSON); "" or why it failed.
std::string write_run_report(const std::string& path, const RunAccount& account);

} // namespace s2p::driver
