// Kernel extraction: a kernel's Clang AST -> seq2par's schedule tree (ir::Kernel).
// Accepts the control flow docs/language.md documents (for-loops with affine bounds, nesting, helper
// functions inlined as branches, integer index arithmetic) and reports everything else
// through Clang's diagnostics, at the construct, saying why.
#pragma once

#include "frontend/kernel_calls.h"
#include "frontend/warp_pragmas.h"
#include "ir/kernel.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <optional>
#include <string>

namespace s2p::frontend {

class KernelExtractor {
public:
  // `display_file` is how locations name the input file in the IR and generated comments.
  // One extractor serves every kernel of a file (they share the index of its calls).
  // `auto_warps`: a call without a warp annotation is left for --auto-warps to assign
  // (warp -1) instead of being an error.
  KernelExtractor(clang::ASTContext& ctx, WarpPragmaTable& pragmas, std::string display_file,
                  bool auto_warps = false);

  // The kernel's IR, or nullopt if errors were reported.
  std::optional<ir::Kernel> extract(const clang::FunctionDecl& kernel);

private:
  class Impl;
  clang::ASTContext& ctx_;
  WarpPragmaTable& pragmas_;
  std::string display_file_;
  bool auto_warps_ = false;
  KernelCalls calls_;
};

// Reports an error at `loc` through the context's diagnostics engine.
void report_error(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message);
void report_note(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message);
void report_warning(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message);

} // namespace s2p::frontend
