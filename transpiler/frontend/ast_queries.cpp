#include "frontend/ast_queries.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>

namespace s2p::frontend {

const clang::Expr* strip(const clang::Expr* e) {
  while (true) {
    const clang::Expr* next = e->IgnoreParens();
    if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(next))
      next = cleanups->getSubExpr();
    else if (const auto* mat = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(next))
      next = mat->getSubExpr();
    else if (const auto* bind = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(next))
      next = bind->getSubExpr();
    else if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(next))
      next = cast->getSubExpr();
    else if (const auto* fcast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(next))
      next = fcast->getSubExpr();
    else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(next);
             construct && construct->getNumArgs() == 1 &&
             !llvm::isa<clang::CXXTemporaryObjectExpr>(construct))
      next = construct->getArg(0);
    if (next == e)
      return e;
    e = next;
  }
}

std::string qualified_name(const clang::NamedDecl* decl) {
  std::string name = decl->getNameAsString();
  for (const clang::DeclContext* ctx = decl->getDeclContext(); ctx && !ctx->isTranslationUnit();
       ctx = ctx->getParent()) {
    if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(ctx)) {
      if (!ns->isAnonymousNamespace() && !ns->isInline())
        name = ns->getName().str() + "::" + name;
    } else if (const auto* record = llvm::dyn_cast<clang::RecordDecl>(ctx)) {
      name = record->getName().str() + "::" + name;
    } else if (!llvm::isa<clang::LinkageSpecDecl>(ctx)) {
      break;
    }
  }
  return "::" + name;
}

const clang::ValueDecl* referenced_decl(const clang::Expr* e) {
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(e)))
    return ref->getDecl();
  return nullptr;
}

const clang::Expr* without_integer_conversion(const clang::Expr* e) {
  while (const auto* implicit = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    if (!implicit->getSubExpr()->getType()->isIntegralOrEnumerationType())
      break;
    e = implicit->getSubExpr();
  }
  return e;
}

} // namespace s2p::frontend
