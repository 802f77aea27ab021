// seq2par's command line: the options, checked and resolved into one RunSettings (inputs,
// compile commands, the transpile options, where outputs go). Everything a run needs is
// decided here; transpile_run.h does the run.
#pragma once

#include "driver/tool_paths.h"
#include "pass_manager/transpile_options.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CommonOptionsParser.h>
#include <clang/Tooling/CompilationDatabase.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace s2p::driver {

inline constexpr int kExitInputError = 1; // errors in the input (Clang-style diagnostics)
inline constexpr int kExitUsageError = 2; // usage or I/O errors

struct RunSettings {
  std::vector<std::string> sources; // each once, as given (or as the database names them)
  pass_manager::TranspileOptions options;
  ToolPaths paths;
  std::string root;     // outputs mirror the inputs below it (absolute)
  std::string out_base; // --out-dir (absolute)
  std::string out_dir_as_given; // --out-dir as written: how summary lines name outputs
  int jobs = 1;
  bool quiet = false, force = false, no_cache = false;
  bool write_unchanged = false; // an input without kernels is written as it is
  std::string report_file, depfile, manifest_file; // absolute, or empty when not asked for
  // How each input is compiled: the database the command line names, or Clang's defaults.
  std::optional<clang::tooling::CommonOptionsParser> parser;
  std::unique_ptr<clang::tooling::CompilationDatabase> loaded; // -p without a file list
  const clang::tooling::CompilationDatabase* database = nullptr;
  std::vector<clang::tooling::ArgumentsAdjuster> adjusters;
};

// The settings, or the exit code when the command line was answered (--help, --version,
// --cxxflags, --ldflags) or refused (with a message on stderr).
std::variant<std::unique_ptr<RunSettings>, int> parse_command_line(int argc, const char** argv);

// How every compile seq2par runs is adjusted: Clang's resource headers, seq2par's headers.
std::vector<clang::tooling::ArgumentsAdjuster> argument_adjusters(const ToolPaths& paths);

// Absolute, without `.` and `..`.
std::string absolute(const std::string& path);

} // namespace s2p::driver
