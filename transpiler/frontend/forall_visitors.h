// What the forall extraction files share: the write visitor every forall-body check derives
// from, the roots of element expressions, and the identity index map.
#pragma once

#include "ir/kernel.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <set>

namespace s2p::frontend {

// The index map m(i) = i: a field read at the forall's own index.
inline ir::TileStep::IndexMap identity_map(int rank) {
  ir::TileStep::IndexMap identity;
  for (int d = 0; d < rank; ++d)
    identity.axis.push_back(d), identity.offset.push_back(0);
  return identity;
}

// Is `type` an s2p::field whose elements can be written (field<N, T>, T not const)?
bool writable_field(clang::QualType type);

// The variable or tile access an element expression is rooted in: `a` in a[j], c(j)[k].
const clang::Expr* access_root(const clang::Expr* e);

// The parameters `helper` assigns to, takes the address of, or passes on as a mutable
// reference or pointer: an index it builds from one of them is no longer the argument it was
// called with.
std::set<const clang::ParmVarDecl*> written_parameters(const clang::FunctionDecl& helper);

// Calls Derived::check_write(target, where) for each assignment, increment and decrement.
template <class Derived> class WriteVisitor : public clang::RecursiveASTVisitor<Derived> {
public:
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    if (op->isAssignmentOp())
      self().check_write(op->getLHS(), op->getOperatorLoc());
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* op) {
    if (op->isIncrementDecrementOp())
      self().check_write(op->getSubExpr(), op->getOperatorLoc());
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->isAssignmentOp() || call->getOperator() == clang::OO_PlusPlus ||
        call->getOperator() == clang::OO_MinusMinus)
      self().check_write(call->getArg(0), call->getOperatorLoc());
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const auto* method = call->getMethodDecl();
    if (method && !method->isConst() && !method->isStatic())
      self().check_write(call->getImplicitObjectArgument(), call->getExprLoc());
    return true;
  }
  // An argument bound to a mutable reference or pointer parameter may be written.
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || llvm::isa<clang::CXXOperatorCallExpr>(call))
      return true;
    for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
      const clang::QualType type = callee->getParamDecl(i)->getType();
      const bool mutable_ref =
          type->isReferenceType() && !type.getNonReferenceType().isConstQualified();
      const bool mutable_pointer =
          type->isPointerType() && !type->getPointeeType().isConstQualified();
      if (mutable_ref || mutable_pointer)
        self().check_write(call->getArg(i), call->getArg(i)->getBeginLoc());
    }
    return true;
  }

private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

} // namespace s2p::frontend
