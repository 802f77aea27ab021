// Lambdas a forall body defines, read where they are called as visible helpers are: their
// parameters bound to the call's arguments, their captures the kernel's own names. A lambda
// that reaches agile fields may only be called, named with auto, or passed to a visible
// helper by a deduced type; any other use (std::function, a pointer) is refused, since its
// calls would happen where seq2par does not look.
#include "frontend/element_access_finder.h"

#include <map>

namespace s2p::frontend {

namespace {

// Whether `stmt` names one of `fields`, or a lambda `reaches` says reaches them (a lambda that
// calls another lambda of the body reaches what that one reaches).
template <class Reaches>
bool names_any(const clang::Stmt& stmt, const std::map<const clang::ValueDecl*, int>& fields,
               const Reaches& reaches) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const std::map<const clang::ValueDecl*, int>* fields = nullptr;
    const Reaches* reaches = nullptr;
    bool found = false;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      found = found || fields->contains(ref->getDecl()) || (*reaches)(*ref);
      return !found;
    }
    bool VisitLambdaExpr(clang::LambdaExpr* lambda) {
      found = found || (*reaches)(*lambda);
      return !found;
    }
  } finder{{}, &fields, &reaches};
  finder.TraverseStmt(const_cast<clang::Stmt*>(&stmt));
  return finder.found;
}

// Lambdas of lambdas nest at most this deep when seq2par looks for the fields they reach.
constexpr int kDeepestLambda = 8;

} // namespace

bool KernelExtractor::Impl::ElementAccessFinder::reaches_fields(const clang::CXXRecordDecl& closure,
                                                                int depth) const {
  const clang::CXXMethodDecl* op = closure.getLambdaCallOperator();
  if (!op || !op->getBody())
    return false;
  // Past the depth limit a lambda counts as reaching fields: its calls are read (and refused
  // there, as too deep) rather than skipped.
  const auto reaches = [&](const clang::Expr& e) {
    const clang::CXXRecordDecl* other = closure_of(&e);
    return other && other != &closure &&
           (depth >= kDeepestLambda || reaches_fields(*other, depth + 1));
  };
  return names_any(*op->getBody(), self->agile_fields_, reaches);
}

// A lambda the body defines is read where it is called, as a helper is (its parameters bound to
// the call's arguments, its captures the kernel's names): its own body is not read here. An
// initializer of a capture is read here (a field captured as `[f = Xd]` is refused as a copy).
bool KernelExtractor::Impl::ElementAccessFinder::TraverseLambdaExpr(clang::LambdaExpr* lambda) {
  if (!closure_of(lambda))
    return RecursiveASTVisitor::TraverseLambdaExpr(lambda);
  if (!check_closure_use(*lambda))
    return true;
  for (const clang::LambdaCapture& capture : lambda->captures())
    if (const auto* var = capture.capturesVariable()
                              ? llvm::dyn_cast<clang::VarDecl>(capture.getCapturedVar())
                              : nullptr;
        var && var->hasInit() && lambda->isInitCapture(&capture))
      TraverseStmt(const_cast<clang::Expr*>(var->getInit()));
  return true;
}

// A use of a lambda of the body that reaches agile fields other than the ones whose calls are
// read would call it where seq2par does not look (std::function, a pointer): refused. False
// when refused.
bool KernelExtractor::Impl::ElementAccessFinder::check_closure_use(const clang::Expr& use) {
  const clang::CXXRecordDecl* closure = closure_of(&use);
  if (!closure || allowed_closures.contains(&use) || !reaches_fields(*closure))
    return true;
  fail(use.getBeginLoc(), "the forall body uses a lambda that reads agile fields other than by "
                          "calling it, naming it with auto, or passing it to a visible helper "
                          "that calls it; seq2par reads such a lambda's accesses where it is "
                          "called");
  return false;
}

// at(i[0], j) for a lambda `at` the body defines: its body read as a helper's.
bool KernelExtractor::Impl::ElementAccessFinder::visit_lambda_call(
    const clang::CXXOperatorCallExpr& call) {
  const clang::CXXRecordDecl* closure = closure_of(call.getArg(0));
  const auto* op = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call.getDirectCallee());
  if (!closure || !op || op->getParent() != closure || !op->getBody())
    return true;
  allowed_closures.insert(strip(call.getArg(0)));
  bool passes_field = reaches_fields(*closure);
  for (unsigned a = 1; a < call.getNumArgs(); ++a)
    if (agile_of(referenced_decl(call.getArg(a)))) {
      allow(call.getArg(a));
      passes_field = true;
    }
  if (!pass_closures(call) || !passes_field)
    return true;
  if (depth >= kMaxHelperDepth) {
    fail(call.getBeginLoc(), "lambdas and helpers that read agile fields nest more than " +
                                 std::to_string(kMaxHelperDepth) + " deep here");
    return true;
  }
  HelperArguments level;
  level.body_lambda = true;
  return read_helper(call, *op, level);
}

// A lambda of the body that reaches agile fields, passed to the callee: read where the callee
// calls it, so the parameter must be of its own type (not std::function or a pointer, whose
// calls seq2par does not follow). False when refused.
bool KernelExtractor::Impl::ElementAccessFinder::pass_closures(const clang::CallExpr& call) {
  for (unsigned a = 0; a < call.getNumArgs(); ++a) {
    const clang::CXXRecordDecl* closure = closure_of(call.getArg(a));
    if (!closure || !reaches_fields(*closure))
      continue;
    allowed_closures.insert(strip(call.getArg(a))); // judged here, once
    const clang::ParmVarDecl* param = parameter_of(call, a);
    if (!param && a == 0 && llvm::isa<clang::CXXOperatorCallExpr>(call))
      continue; // the lambda called, not passed
    if (!param || record_of(param->getType()) != closure) {
      fail(call.getArg(a)->getBeginLoc(),
           "the forall body passes a lambda that reads agile fields as a parameter of another "
           "type; seq2par reads such a lambda's accesses where it is called, so pass it by a "
           "deduced type (const auto& f, or a template parameter)");
      return false;
    }
  }
  return true;
}


} // namespace s2p::frontend
