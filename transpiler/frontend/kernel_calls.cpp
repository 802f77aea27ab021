#include "frontend/kernel_calls.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

namespace s2p::frontend {

const std::vector<const clang::CallExpr*>& KernelCalls::of(const clang::FunctionDecl& function) {
  if (!calls_) {
    struct Walk : clang::RecursiveASTVisitor<Walk> {
      std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>> found;
      bool VisitCallExpr(clang::CallExpr* call) {
        if (const auto* callee = call->getDirectCallee())
          found[callee->getCanonicalDecl()].push_back(call);
        return true;
      }
    } walk;
    // Only this file's own declarations: headers do not call the kernels it defines.
    const clang::SourceManager& sm = ctx_.getSourceManager();
    for (clang::Decl* decl : ctx_.getTranslationUnitDecl()->decls())
      if (sm.isInMainFile(sm.getFileLoc(decl->getLocation())))
        walk.TraverseDecl(decl);
    calls_ = std::move(walk.found);
  }
  static const std::vector<const clang::CallExpr*> none;
  const auto found = calls_->find(function.getCanonicalDecl());
  return found == calls_->end() ? none : found->second;
}

} // namespace s2p::frontend
