// The element accesses of a forall body over the global view (X[m(i)]), also inside the
// helpers and lambdas it reads as if inlined: the finder the global-view forall, the lambda
// reader (forall_body_lambdas.cpp) and the element-reference rules (element_references.cpp)
// share.
#pragma once

#include "frontend/kernel_extractor_impl.h"
#include "frontend/forall_visitors.h"

#include <set>
#include <string>
#include <vector>

namespace s2p::frontend {

// Every subscript X[m(i)] of an agile field in a forall body over the global view: what it
// reads and writes.
struct KernelExtractor::Impl::ElementAccess {
  const clang::ValueDecl* field;
  ir::TileStep::IndexMap map;
  bool written;
  clang::SourceLocation where;
  bool compound = false; // written by `+=` and the like, which read the element first
  std::vector<ir::TileStep::IndexBound> guard{}; // the bounds the `if`s around it put on i
};

// Helpers nest at most this deep inside a forall body (a recursive helper is refused there).
inline constexpr int kMaxHelperDepth = 8;

// Every element access X[m(i)] of an agile field in a forall body over the global view, also
// inside the visible helpers the body passes a field to (read as if inlined): what it reads
// and writes. Any other use of an agile field (a local reference to it, .data(), a helper
// seq2par cannot see) would read elements no index map records, so it is refused.
struct KernelExtractor::Impl::ElementAccessFinder
    : clang::RecursiveASTVisitor<ElementAccessFinder> {
  Impl* self;
  const clang::ParmVarDecl* i;
  int rank;
  std::vector<ElementAccess>* accesses;
  std::set<const clang::Expr*>* written;
  bool ok = true;
  const HelperArguments* through = nullptr; // inside a helper: its bindings
  int depth = 0;
  std::set<const clang::DeclRefExpr*> allowed{}; // field names used as X[...] or X.extent()
  std::set<const clang::Expr*> compound{};        // targets of `+=`, `-=`, ...
  // Names and expressions of the body's lambdas used in a way whose calls are read: called,
  // named by a local of their own type, or passed to a helper whose body is read.
  std::set<const clang::Expr*> allowed_closures{};
  const LoopRanges* loops = nullptr;               // the body's counted loops
  const clang::Stmt* body = nullptr;               // the forall body (guards stop there)
  // Inside a helper or lambda: the guard of the call that reached it.
  const std::vector<ir::TileStep::IndexBound>* call_guard = nullptr;
  // Inside a helper or lambda, also the `if`s around the access there that test the forall's
  // index: captured by a lambda, or a parameter bound to it (`r + 1 < n` for `r` given i[0]).
  std::vector<ir::TileStep::IndexBound> guard_at(const clang::Stmt& access) const {
    if (!through)
      return body ? self->guard_of(access, *i, *body) : std::vector<ir::TileStep::IndexBound>{};
    std::vector<ir::TileStep::IndexBound> guard =
        call_guard ? *call_guard : std::vector<ir::TileStep::IndexBound>{};
    if (const clang::Stmt* inner = through->helper->getBody()) {
      const auto inside = self->guard_of(access, *i, *inner, through);
      guard.insert(guard.end(), inside.begin(), inside.end());
    }
    return guard;
  }

  void fail(clang::SourceLocation where, const std::string& message) {
    self->error(where, message);
    ok = false;
  }
  // The kernel's agile field `decl` stands for: itself, or the one a helper parameter is bound to.
  const clang::ValueDecl* agile_of(const clang::ValueDecl* decl) const {
    if (!decl)
      return nullptr;
    if (through) {
      const auto bound = through->fields.find(decl);
      if (bound != through->fields.end())
        return bound->second;
      if (!through->body_lambda)
        return nullptr;
    }
    return self->agile_fields_.contains(decl) ? decl : nullptr;
  }
  // "agile field 'Yd'", or "'f' (agile field 'Yd' in helper 'at_clamped')" inside a helper.
  std::string field_words(const clang::ValueDecl& name, const clang::ValueDecl& field) const {
    if (!through)
      return "agile field '" + field.getNameAsString() + '\'';
    if (&name == &field) // a lambda's capture
      return "agile field '" + field.getNameAsString() + "' in " + helper_words();
    return '\'' + name.getNameAsString() + "' (agile field '" + field.getNameAsString() +
           "' in " + helper_words() + ")";
  }
  // "helper 'at_clamped'", or "the lambda at line 12" for a lambda the body defines.
  std::string helper_words() const {
    if (!through->body_lambda)
      return "helper '" + through->helper->getNameAsString() + '\'';
    const clang::SourceManager& sources = self->ctx_.getSourceManager();
    return "the lambda at line " +
           std::to_string(sources.getExpansionLineNumber(through->helper->getLocation()));
  }
  void allow(const clang::Expr* e) {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(e)))
      allowed.insert(ref);
  }

  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->isAssignmentOp())
      written->insert(strip(b->getLHS()));
    if (b->isCompoundAssignmentOp())
      compound.insert(strip(b->getLHS()));
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->isAssignmentOp())
      written->insert(strip(call->getArg(0)));
    if (call->isAssignmentOp() && call->getOperator() != clang::OO_Equal)
      compound.insert(strip(call->getArg(0)));
    if (call->getOperator() == clang::OO_Call)
      return visit_lambda_call(*call);
    if (call->getOperator() != clang::OO_Subscript)
      return true;
    const clang::ValueDecl* name = referenced_decl(call->getArg(0));
    const clang::ValueDecl* field = agile_of(name);
    if (!field)
      return true;
    allow(call->getArg(0));
    const int field_rank = self->agile_fields_.at(field);
    auto map = self->index_map(call->getArg(1), i, rank, field_rank, loops, through);
    if (!map) {
      fail(call->getArg(1)->getBeginLoc(),
           "the index of " + field_words(*name, *field) + " (rank " +
               std::to_string(field_rank) +
               ") must be the forall's index, or one coordinate per axis of the field, each "
               "i[k] or a constant times it, plus a constant and at most one value of the kernel "
               "added or subtracted (or plus or minus a counted loop variable of the body), a "
               "variable of a counted loop of the body plus a constant, "
               "a constant, or a value of the kernel that names neither the index nor the "
               "body's other locals (like {i[1], i[0]}, {2 * i[0] + 1, k}, {0, i[1] - lag}, "
               "{9 - i[0], i[1]})" +
               (!through ? ""
                : through->body_lambda
                    ? "; inside a lambda of the body, from its parameters and what it captures"
                    : "; inside a helper, from the helper's parameters that the forall passed "
                      "them (unchanged)"));
      return true;
    }
    switch (element_use(*call, self->ctx_)) {
    case ElementUse::Address:
      fail(call->getBeginLoc(),
           "the forall body takes the address of an element of " + field_words(*name, *field) +
               "; a pointer reaches elements no index of the body names: index the field itself");
      return true;
    case ElementUse::Reference: // written where the reference is used: a write, read first
      written->insert(call);
      compound.insert(call);
      break;
    case ElementUse::Value:
      break;
    }
    const bool writes = written->count(call) > 0;
    if (writes && through) {
      fail(call->getBeginLoc(), "the forall body writes " + field_words(*name, *field) +
                                    ", or lets a reference to it out of the " +
                                    (through->body_lambda ? "lambda" : "helper") +
                                    "; write the output in the forall body "
                                    "itself (Yd[i] = helper(...))");
      return true;
    }
    accesses->push_back(
        {field, *map, writes, call->getBeginLoc(), compound.contains(call), guard_at(*call)});
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const clang::Expr* object = call->getImplicitObjectArgument();
    const clang::ValueDecl* name = referenced_decl(object);
    const clang::ValueDecl* field = agile_of(name);
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    if (!field || !method)
      return true;
    if (method->getName() == "extent" || method->getName() == "map") {
      allow(object); // the field's shape, not its elements
      return true;
    }
    allow(object);
    fail(call->getExprLoc(), "the forall body calls '" + method->getNameAsString() + "' on " +
                                 field_words(*name, *field) +
                                 ", which reaches elements no index of the body names; read "
                                 "elements as " + field->getNameAsString() + "[index]");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call);
  bool VisitVarDecl(clang::VarDecl* var) {
    // `auto at = [&](...) {...};` or a copy of such a lambda: a name for it, whose calls are read.
    if (const clang::Expr* init = var->getInit(); init && closure_of(init) &&
                                                  record_of(var->getType()) == closure_of(init))
      allowed_closures.insert(strip(init));
    return true;
  }
  bool TraverseLambdaExpr(clang::LambdaExpr* lambda);
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (!check_closure_use(*ref))
      return true;
    const clang::ValueDecl* field = agile_of(ref->getDecl());
    if (!field || allowed.contains(ref))
      return true;
    fail(ref->getBeginLoc(),
         "the forall body uses " + field_words(*ref->getDecl(), *field) +
             " other than as an element (" + field->getNameAsString() +
             "[index]), its extent() or an argument of a visible helper; seq2par moves to each "
             "tile the elements the body's indices name, so a local reference, pointer or copy "
             "of the field would read elements it never moved: index the field itself");
    return true;
  }

private:
  bool read_helper(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                   HelperArguments& level);
  bool visit_lambda_call(const clang::CXXOperatorCallExpr& call);
  bool pass_closures(const clang::CallExpr& call);
  bool check_closure_use(const clang::Expr& use);

  static const clang::CXXRecordDecl* record_of(clang::QualType type) {
    return type.getNonReferenceType()->getAsCXXRecordDecl();
  }
  // The class of the lambda `e` is (or names) when the forall body defines it, else null.
  const clang::CXXRecordDecl* closure_of(const clang::Expr* e) const {
    const clang::CXXRecordDecl* record = record_of(strip(e)->getType());
    if (!record || !record->isLambda())
      return nullptr;
    return i->getDeclContext()->Encloses(record->getDeclContext()) ? record : nullptr;
  }
  // Whether the lambda's body names one of the kernel's agile fields (through its captures).
  bool reaches_fields(const clang::CXXRecordDecl& closure, int depth = 0) const;

};


} // namespace s2p::frontend
