#include "frontend/ast_queries.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

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

const clang::ParmVarDecl* parameter_of(const clang::CallExpr& call, unsigned a) {
  const clang::FunctionDecl* callee = call.getDirectCallee();
  if (!callee)
    return nullptr;
  if (llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee)) {
    if (a == 0)
      return nullptr;
    --a;
  }
  return a < callee->getNumParams() ? callee->getParamDecl(a) : nullptr;
}

const clang::ValueDecl* referenced_decl(const clang::Expr* e) {
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(e)))
    return ref->getDecl();
  return nullptr;
}

std::optional<std::int64_t> integer_constant(const clang::Expr* e, const clang::ASTContext& ctx,
                                             unsigned max_bits) {
  clang::Expr::EvalResult value;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(value, ctx) ||
      value.Val.getInt().getSignificantBits() > std::min(max_bits, 64u))
    return std::nullopt;
  return value.Val.getInt().getExtValue();
}

std::optional<ConstantTerm> constant_term(const clang::Expr& e, const clang::ASTContext& ctx,
                                          const ValueOf& value_of) {
  const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(strip(&e));
  if (!bin || (bin->getOpcode() != clang::BO_Add && bin->getOpcode() != clang::BO_Sub))
    return std::nullopt;
  const auto operand = [&](const clang::Expr* x) { return value_of ? value_of(x) : x; };
  if (const auto c = integer_constant(operand(bin->getRHS()), ctx))
    return ConstantTerm{bin->getLHS(), bin->getOpcode() == clang::BO_Sub ? -*c : *c};
  if (bin->getOpcode() == clang::BO_Add)
    if (const auto c = integer_constant(operand(bin->getLHS()), ctx))
      return ConstantTerm{bin->getRHS(), *c};
  return std::nullopt;
}

ConstantTerm constant_terms(const clang::Expr& e, const clang::ASTContext& ctx) {
  ConstantTerm out{strip(&e), 0};
  while (const auto step = constant_term(*out.base, ctx)) {
    out.constant += step->constant;
    out.base = strip(step->base);
  }
  return out;
}

std::optional<std::pair<int, std::int64_t>> index_term(const clang::Expr* e,
                                                       const clang::ParmVarDecl& i,
                                                       const clang::ASTContext& ctx) {
  const ConstantTerm term = constant_terms(*e, ctx);
  clang::Expr::EvalResult value;
  const auto* subscript = llvm::dyn_cast<clang::CXXOperatorCallExpr>(term.base);
  if (!subscript || subscript->getOperator() != clang::OO_Subscript ||
      referenced_decl(subscript->getArg(0)) != &i ||
      !subscript->getArg(1)->EvaluateAsInt(value, ctx))
    return std::nullopt;
  return std::make_pair(static_cast<int>(value.Val.getInt().getExtValue()), term.constant);
}

const clang::Expr* without_integer_conversion(const clang::Expr* e) {
  while (const auto* implicit = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    if (!implicit->getSubExpr()->getType()->isIntegralOrEnumerationType())
      break;
    e = implicit->getSubExpr();
  }
  return e;
}

// The braced list an argument was written as ({2.0, 1.0}), through the constructor of the
// parameter type (extent, std::vector with its defaulted allocator) and initializer_list.
const clang::InitListExpr* braced_list(const clang::Expr* e) {
  e = strip(e);
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
      construct && construct->getNumArgs() >= 1)
    e = strip(construct->getArg(0));
  if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(e))
    e = strip(std_list->getSubExpr());
  return llvm::dyn_cast<clang::InitListExpr>(e);
}

// The integers of a constant extent argument ({32, 16}), or nothing if any is not constant.
std::optional<std::vector<std::int64_t>> constant_extent(const clang::Expr* e,
                                                         const clang::ASTContext& ctx) {
  const clang::InitListExpr* list = braced_list(e);
  if (!list)
    return std::nullopt;
  std::vector<std::int64_t> values;
  for (const clang::Expr* init : list->inits()) {
    clang::Expr::EvalResult value;
    if (!init->EvaluateAsInt(value, ctx))
      return std::nullopt;
    values.push_back(value.Val.getInt().getExtValue());
  }
  return values;
}

// Per axis, the constant split points of split_points' second argument ({{{16}, {16}}}),
// or nothing if the argument is not written out as constants.
std::optional<std::vector<std::vector<std::int64_t>>>
constant_splits(const clang::Expr* e, const clang::ASTContext& ctx) {
  const auto* list = llvm::dyn_cast<clang::InitListExpr>(strip(e));
  // std::array wraps a C array: its list holds one list with the axes.
  if (list && list->getNumInits() == 1)
    if (const auto* inner = llvm::dyn_cast<clang::InitListExpr>(strip(list->getInit(0))))
      list = inner;
  if (!list)
    return std::nullopt;
  std::vector<std::vector<std::int64_t>> axes;
  for (const clang::Expr* axis : list->inits()) {
    auto points = constant_extent(axis, ctx);
    if (!points)
      return std::nullopt;
    axes.push_back(std::move(*points));
  }
  return axes;
}

bool may_write(const clang::Stmt& body, const clang::VarDecl& var, const clang::Stmt* skip) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::VarDecl* var = nullptr;
    const clang::Stmt* skip = nullptr;
    bool found = false;
    bool TraverseStmt(clang::Stmt* s, DataRecursionQueue* queue = nullptr) {
      return s == skip || RecursiveASTVisitor::TraverseStmt(s, queue);
    }
    bool names(const clang::Expr* e) const { return referenced_decl(e) == var; }
    bool VisitBinaryOperator(clang::BinaryOperator* op) {
      found = found || (op->isAssignmentOp() && names(op->getLHS()));
      return !found;
    }
    bool VisitUnaryOperator(clang::UnaryOperator* op) {
      found = found || ((op->isIncrementDecrementOp() || op->getOpcode() == clang::UO_AddrOf) &&
                        names(op->getSubExpr()));
      return !found;
    }
    bool VisitVarDecl(clang::VarDecl* d) { // auto& alias = k;
      found = found || (d->getType()->isReferenceType() &&
                        !d->getType().getNonReferenceType().isConstQualified() && d->getInit() &&
                        names(d->getInit()));
      return !found;
    }
    bool VisitCallExpr(clang::CallExpr* call) { // f(k) with f(int&)
      const clang::FunctionDecl* callee = call->getDirectCallee();
      for (unsigned a = 0; a < call->getNumArgs(); ++a) {
        const bool by_reference =
            !callee || a >= callee->getNumParams() ||
            (callee->getParamDecl(a)->getType()->isReferenceType() &&
             !callee->getParamDecl(a)->getType().getNonReferenceType().isConstQualified());
        found = found || (by_reference && names(call->getArg(a)) &&
                          call->getArg(a)->isLValue() && !llvm::isa<clang::CXXOperatorCallExpr>(call));
      }
      return !found;
    }
  } finder;
  finder.var = &var;
  finder.skip = skip;
  finder.TraverseStmt(const_cast<clang::Stmt*>(&body));
  return finder.found;
}

// Calls a view's initializer may make when the view is built before the steps instead of after
// one: s2p's own view builders, and the accessors that give a buffer's address or size (which
// no step changes). Anything else could read what a step writes (a user function that copies
// a field into a new buffer), so the hoisted view would see the values from before the step.
namespace {

bool view_builder_call(const clang::FunctionDecl& callee) {
  // An element access (field(i), agile[i]) reads what a step may have written; a coordinate
  // of an s2p index, extent or grid (`A.extent()[0]`) is a value no step changes.
  if (callee.getOverloadedOperator() == clang::OO_Call ||
      callee.getOverloadedOperator() == clang::OO_Subscript) {
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&callee);
    const llvm::StringRef owner = method ? method->getParent()->getName() : "";
    return (owner == "index" || owner == "extent" || owner == "grid") &&
           qualified_name(method->getParent()).rfind("::s2p::", 0) == 0;
  }
  if (qualified_name(&callee).rfind("::s2p::", 0) == 0)
    return true;
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&callee);
  if (method && method->getParent()->isInStdNamespace())
    return llvm::isa<clang::CXXConstructorDecl>(method)
               ? method->getParent()->getName() == "array" ||
                     method->getParent()->getName() == "initializer_list"
               : method->getDeclName().isIdentifier() &&
                     (method->getName() == "data" || method->getName() == "size");
  return false;
}

} // namespace

const clang::Expr* first_foreign_call(const clang::Stmt* s) {
  if (!s)
    return nullptr;
  if (llvm::isa<clang::LambdaExpr>(s) || llvm::isa<clang::StmtExpr>(s))
    return llvm::cast<clang::Expr>(s);
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(s)) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || !view_builder_call(*callee))
      return call;
  }
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(s))
    if (!construct->getConstructor()->isTrivial() &&
        !construct->getConstructor()->isCopyOrMoveConstructor() &&
        !view_builder_call(*construct->getConstructor()))
      return construct;
  for (const clang::Stmt* child : s->children())
    if (const clang::Expr* found = first_foreign_call(child))
      return found;
  return nullptr;
}

} // namespace s2p::frontend
