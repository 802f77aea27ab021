// seq2par's front end for one translation unit, inside a Clang tool: finds the kernels in
// the main file (AST matchers on S2P_KERNEL), extracts each kernel's IR (the schedule tree)
// and hands it to the driver's KernelHandler, which runs the kernel passes. The front end
// knows nothing of the passes: it reports the handler's diagnostics through Clang at the
// construct, and returns where each kernel body lies and the text that replaces it. The
// driver assembles the generated file and writes files only if every input succeeded.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"

#include <clang/Tooling/Tooling.h>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace s2p::frontend {

// A kernel body to replace: file offsets in the main file, and the new text.
struct BodyReplacement {
  unsigned begin = 0; // offset of '{'
  unsigned end = 0;   // offset after '}'
  std::string text;
};

struct FileResult {
  std::string input;        // the path the tool was given (absolute)
  std::string display_name; // how generated code and diagnostics name it
  bool ok = false;          // parsed, and every kernel handled without errors
  std::string original;     // the main file's text, as the compile read it
  std::vector<BodyReplacement> bodies; // in file order; empty if nothing to replace
  std::vector<std::string> dependencies; // every file the compile read (for incremental re-runs)
};

// Where the handler's kernel came from.
struct KernelOrigin {
  std::string display_name;    // the file, as generated code and diagnostics name it
  ir::SourceLocation declared_at; // the kernel's name: errors about the kernel as a whole
};

// Runs the stages after the front end on one kernel: returns its new body (braces
// included), or nothing to leave it as written; problems go into `diags`.
using KernelHandler = std::function<std::optional<std::string>(
    const ir::Kernel& kernel, const KernelOrigin& origin, ir::Diagnostics& diags)>;

class TranspileActionFactory : public clang::tooling::FrontendActionFactory {
public:
  using DisplayName = std::function<std::string(const std::string& absolute_path)>;
  using FileStarted = std::function<void(const std::string& display_name)>;
  // `auto_warps`: calls without a warp annotation reach the handler with warp -1
  // (--auto-warps assigns them) instead of being errors.
  TranspileActionFactory(KernelHandler handler, DisplayName display_name,
                         FileStarted started = {}, bool auto_warps = false);
  std::unique_ptr<clang::FrontendAction> create() override;
  const std::deque<FileResult>& results() const { return results_; }

private:
  KernelHandler handler_;
  DisplayName display_name_;
  FileStarted started_;
  bool auto_warps_ = false;
  std::deque<FileResult> results_; // stable references while an action fills one in
};

} // namespace s2p::frontend
