// Runs seq2par on one translation unit inside a Clang tool: finds the kernels in the main
// file (AST matchers on S2P_KERNEL), extracts their schedule trees, runs the warp-split
// pipeline, and produces the `.par.cpp` text (kernel bodies replaced, formatted with
// libFormat) and the requested dumps -- in memory. The driver writes files only if every
// input succeeded.
#pragma once

#include "dump/dumps.h"
#include "passes/pipeline.h"

#include <clang/Tooling/Tooling.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace s2p::frontend {

struct TranspileOptions {
  passes::PipelineOptions pipeline;
  std::vector<dump::DumpKind> dumps;
  std::string style =
      "file"; // libFormat style for generated code ("file" = the input's .clang-format)
  int fabric_tiles = 1472;        // a multi-tile kernel may span at most this many tiles
  std::string fabric_description; // where fabric_tiles came from, for messages (--fabric)
  std::uint32_t fabric_tiles_per_chip = 1472; // collective templates span chips of this size
  std::string fabric_file; // --fabric: forall templates are planned on it (empty: built-in)
  // --extents: kernel -> field parameter -> extent, instead of those its calls pass
  std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> given_extents;
};

struct KernelResult {
  std::string name;
  int warps = 0;
  int channels = 0;
  int calls = 0; // intrinsic calls, or a multi-tile kernel's steps
  int tiles = 0; // multi-tile kernels
  // (file name suffix, content): "<kernel>.cdfg.json", "<kernel>.cdfg.dot", ...
  std::vector<std::pair<std::string, std::string>> dumps;
};

struct FileResult {
  std::string input;        // the path the tool was given (absolute)
  std::string display_name; // how generated code and diagnostics name it
  bool ok = false;          // parsed and transpiled without errors
  std::string output;       // the generated .par.cpp (empty if no kernels)
  std::vector<KernelResult> kernels;
  std::vector<std::string> dependencies; // every file the compile read (for incremental re-runs)
};

class TranspileActionFactory : public clang::tooling::FrontendActionFactory {
public:
  using DisplayName = std::function<std::string(const std::string& absolute_path)>;
  using FileStarted = std::function<void(const std::string& display_name)>;
  TranspileActionFactory(TranspileOptions options, DisplayName display_name,
                         FileStarted started = {});
  std::unique_ptr<clang::FrontendAction> create() override;
  const std::deque<FileResult>& results() const { return results_; }

private:
  TranspileOptions options_;
  DisplayName display_name_;
  FileStarted started_;
  std::deque<FileResult> results_; // stable references while an action fills one in
};

} // namespace s2p::frontend
