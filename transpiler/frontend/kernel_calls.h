// Where a file calls its kernels: the direct calls in the main file's own declarations,
// found in one walk the first time any kernel asks (a forall's or ring's template is
// planned for the extents those calls pass).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <map>
#include <optional>
#include <vector>

namespace s2p::frontend {

class KernelCalls {
public:
  explicit KernelCalls(clang::ASTContext& ctx) : ctx_(ctx) {}

  // The calls of `function` (any redeclaration) in the main file, in source order.
  const std::vector<const clang::CallExpr*>& of(const clang::FunctionDecl& function);

private:
  clang::ASTContext& ctx_;
  std::optional<std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>>> calls_;
};

} // namespace s2p::frontend
