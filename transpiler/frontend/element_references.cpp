// An element of an agile field bound to a reference the body may write through: a write where
// the reference is used, so the access counts as written (and read first); its address taken is
// refused (a pointer reaches elements no index names).
#include "frontend/element_access_finder.h"

#include <clang/AST/ParentMapContext.h>

namespace s2p::frontend {

namespace {

bool non_const_reference(clang::QualType type) {
  return type->isReferenceType() && !type.getNonReferenceType().isConstQualified();
}

// Whether `call` passes `arg` where the callee may write it: a non-const reference parameter,
// or the object of a non-const member operator. A direct assignment to the access itself is the
// write the finder records already.
bool reference_argument(const clang::CallExpr& call, const clang::Expr& arg,
                        const clang::Expr& access) {
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(&call)) {
    if (op->isAssignmentOp() && op->getArg(0) == &arg)
      return &arg != &access;
    if (const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call.getDirectCallee());
        method && op->getArg(0) == &arg)
      return !method->isConst();
  }
  for (unsigned a = 0; a < call.getNumArgs(); ++a)
    if (call.getArg(a) == &arg) {
      const clang::ParmVarDecl* param = parameter_of(call, a);
      return param && non_const_reference(param->getType());
    }
  return false;
}

} // namespace

namespace {

// The expression `parent` is when it only passes `e` on as the same object (parentheses,
// cleanups, a member of it, a glvalue `?:`, a cast that adds const or goes to a base), or null.
// `made_const` becomes true at a cast to const.
const clang::Expr* same_object(const clang::DynTypedNode& parent, bool& made_const) {
  if (const auto* cast = parent.get<clang::ImplicitCastExpr>()) {
    const auto kind = cast->getCastKind();
    if (kind != clang::CK_NoOp && kind != clang::CK_DerivedToBase &&
        kind != clang::CK_UncheckedDerivedToBase)
      return nullptr; // its value (lvalue to rvalue), or a conversion
    made_const = made_const || cast->getType().isConstQualified();
    return cast;
  }
  const auto* up = parent.get<clang::Expr>();
  if (!up || !up->isGLValue())
    return nullptr;
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(up))
    return llvm::isa<clang::FieldDecl>(member->getMemberDecl()) ? up : nullptr;
  return llvm::isa<clang::ParenExpr>(up) || llvm::isa<clang::ExprWithCleanups>(up) ||
                 llvm::isa<clang::ConditionalOperator>(up)
             ? up
             : nullptr;
}

} // namespace

ElementUse element_use(const clang::Expr& access, clang::ASTContext& ctx) {
  const clang::Expr* e = &access;
  bool made_const = false; // a cast to const on the way: a read-only reference
  const auto reference_unless_const = [&](bool writable) {
    return writable && !made_const ? ElementUse::Reference : ElementUse::Value;
  };
  while (true) {
    const auto parents = ctx.getParents(*e);
    if (parents.size() != 1)
      return ElementUse::Value;
    const clang::DynTypedNode& parent = parents[0];
    if (const clang::Expr* up = same_object(parent, made_const)) {
      e = up;
      continue;
    }
    if (const auto* member = parent.get<clang::MemberExpr>()) { // a member function called on it
      const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
      return reference_unless_const(method && !method->isConst() && !method->isStatic());
    }
    if (const auto* unary = parent.get<clang::UnaryOperator>()) {
      if (unary->getOpcode() == clang::UO_AddrOf)
        return ElementUse::Address;
      return unary->isIncrementDecrementOp() ? ElementUse::Reference : ElementUse::Value;
    }
    if (const auto* binary = parent.get<clang::BinaryOperator>()) // a member of it assigned
      return binary->isAssignmentOp() && binary->getLHS() == e && e != &access
                 ? ElementUse::Reference
                 : ElementUse::Value;
    if (const auto* var = parent.get<clang::VarDecl>())
      return reference_unless_const(non_const_reference(var->getType()));
    if (parent.get<clang::ReturnStmt>()) // by reference: a value return converts first
      return reference_unless_const(true);
    if (const auto* call = parent.get<clang::CallExpr>())
      return reference_unless_const(reference_argument(*call, *e, access));
    return ElementUse::Value;
  }
}

} // namespace s2p::frontend
