// The guards of a forall body's reads: the bounds on the index that the `if`s (and `?:`s)
// around a read put (the boundary test of a stencil, `if (i[0] > 0 && i[0] < n - 1)`, or an
// early `if (i[0] == 0 || ...) return;`), so that owner-copy plans only the elements the guarded
// indices read. Only bounds of one index coordinate against a value of the kernel are
// kept; any other condition (i[1] <= i[0], a data test) is left out, which only makes the
// footprint larger, never wrong.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <functional>

namespace s2p::frontend {

namespace {

using ir::TileStep;

// The comparison the operator makes with its sides swapped (a < b is b > a).
clang::BinaryOperatorKind swapped(clang::BinaryOperatorKind op) {
  switch (op) {
  case clang::BO_LT: return clang::BO_GT;
  case clang::BO_GT: return clang::BO_LT;
  case clang::BO_LE: return clang::BO_GE;
  case clang::BO_GE: return clang::BO_LE;
  default: return op;
  }
}
// The comparison that holds where `op` does not.
clang::BinaryOperatorKind negated(clang::BinaryOperatorKind op) {
  switch (op) {
  case clang::BO_LT: return clang::BO_GE;
  case clang::BO_GE: return clang::BO_LT;
  case clang::BO_GT: return clang::BO_LE;
  case clang::BO_LE: return clang::BO_GT;
  case clang::BO_EQ: return clang::BO_NE;
  case clang::BO_NE: return clang::BO_EQ;
  default: return op;
  }
}

// "(value) + c" with c folded into the constant where there is one.
TileStep::IndexBound bound(int axis, bool upper, const std::string& value,
                           std::optional<std::int64_t> constant, std::int64_t add) {
  if (constant)
    return {axis, upper, std::to_string(*constant + add), *constant + add};
  if (add == 0)
    return {axis, upper, "(" + value + ")", std::nullopt};
  const std::string term = std::to_string(add < 0 ? -add : add);
  return {axis, upper, "(" + value + ") " + (add > 0 ? "+ " : "- ") + term, std::nullopt};
}

// i[a] + c OP i[b] + d as bounds on i[a] against i[b] + (d - c): lower inclusive, upper
// exclusive; `!=` excludes the one value.
void add_index_bounds(clang::BinaryOperatorKind op, std::pair<int, std::int64_t> term,
                      std::pair<int, std::int64_t> other, const std::string& value,
                      std::vector<TileStep::IndexBound>& guard) {
  const auto against = [&](bool upper, std::int64_t add) {
    TileStep::IndexBound b{term.first, upper, "(" + value + ") + " + std::to_string(add - term.second),
                           std::nullopt};
    b.against = TileStep::IndexBound::IndexTerm{other.first, other.second - term.second + add};
    guard.push_back(std::move(b));
  };
  if (op == clang::BO_NE) {
    against(false, 0);
    guard.back().excluded = true;
  }
  if (op == clang::BO_LT || op == clang::BO_LE || op == clang::BO_EQ)
    against(true, op == clang::BO_LT ? 0 : 1);
  if (op == clang::BO_GT || op == clang::BO_GE || op == clang::BO_EQ)
    against(false, op == clang::BO_GT ? 1 : 0);
}

// A body's `return` in `s` reached unconditionally (the statement itself, or one directly
// in its block).
bool returns(const clang::Stmt* s) {
  if (llvm::isa_and_nonnull<clang::ReturnStmt>(s))
    return true;
  if (const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(s))
    for (const clang::Stmt* child : block->body())
      if (llvm::isa<clang::ReturnStmt>(child))
        return true;
  return false;
}

// The `for` around steps whose header declares `var`, if one does.
const clang::ForStmt* declaring_loop(const clang::VarDecl& var, clang::ASTContext& ctx) {
  const auto parents = ctx.getParents(var);
  const auto* declaration = parents.empty() ? nullptr : parents[0].get<clang::DeclStmt>();
  if (!declaration)
    return nullptr;
  const auto above = ctx.getParents(*declaration);
  const auto* loop = above.empty() ? nullptr : above[0].get<clang::ForStmt>();
  return loop && loop->getInit() == declaration ? loop : nullptr;
}

// Whether `e` names a variable that a `for` header declares (the loop around steps whose
// iterations sweep it across the index range, floyd-warshall's `k`).
bool names_loop_variable(const clang::Expr& e, clang::ASTContext& ctx) {
  struct Names : clang::RecursiveASTVisitor<Names> {
    explicit Names(clang::ASTContext& context) : context(context) {}
    clang::ASTContext& context;
    bool found = false;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      found = var && declaring_loop(*var, context);
      return !found;
    }
  } names(ctx);
  names.TraverseStmt(const_cast<clang::Expr*>(&e));
  return names.found;
}

// `i[a] + c` plus values of the kernel (`i[0] + shift < n`): the index term, and the values as
// the other side of the comparison takes them (" - (shift)"), when `e` is such a sum of one
// coordinate of the index (added), constants and values `is_value` accepts.
struct ShiftedIndexTerm {
  std::pair<int, std::int64_t> term;
  std::string moved;
};
std::optional<ShiftedIndexTerm>
shifted_index_term(const clang::Expr* e, const clang::ParmVarDecl& i, const clang::ASTContext& ctx,
                   const std::function<bool(const clang::Expr&)>& is_value,
                   const std::function<std::string(const clang::Expr&)>& text_of) {
  SumTerms sum;
  add_sum_terms(e, nullptr, 1, ctx, sum);
  std::optional<std::pair<int, std::int64_t>> term;
  std::string moved;
  for (const SumTerms::Term& leaf : sum.terms) {
    if (const auto index = index_term(leaf.leaf, i, ctx); index && leaf.sign > 0 && !term) {
      term = index;
      continue;
    }
    if (!is_value(*leaf.leaf))
      return std::nullopt;
    moved += (leaf.sign > 0 ? " - (" : " + (") + text_of(*leaf.leaf) + ")";
  }
  if (!term || moved.empty())
    return std::nullopt;
  return ShiftedIndexTerm{{term->first, term->second + sum.constant}, moved};
}

// `side` read through a helper's or lambda's parameters as the call's arguments: i[a] + c (one
// coordinate of the index, added, and constants), else nothing.
std::optional<std::pair<int, std::int64_t>> resolved_index_term(const clang::Expr* side,
                                                                const clang::ParmVarDecl& i,
                                                                const HelperArguments* through,
                                                                const clang::ASTContext& ctx) {
  SumTerms sum;
  add_sum_terms(side, through, 1, ctx, sum);
  if (sum.terms.size() != 1 || sum.terms.front().sign < 0 || helper_scope(sum.terms.front().level))
    return std::nullopt;
  const auto term = index_term(sum.terms.front().leaf, i, ctx);
  if (!term)
    return std::nullopt;
  return std::make_pair(term->first, term->second + sum.constant);
}

// The other side of a comparison as the forall body writes it: a constant, or, inside a helper,
// the argument its parameter was given (a helper's own local gives no bound: null).
const clang::Expr* body_value(const clang::Expr* value, const HelperArguments* through,
                              const clang::ASTContext& ctx) {
  if (!through || value->isValueDependent())
    return value;
  clang::Expr::EvalResult constant;
  if (value->EvaluateAsInt(constant, ctx))
    return value;
  const auto [resolved, level] = resolve(value, through);
  return helper_scope(level) ? nullptr : resolved;
}

} // namespace

const clang::CallExpr* min_max_call(const clang::Expr& e, bool max) {
  const auto* call = llvm::dyn_cast<clang::CallExpr>(e.IgnoreParenImpCasts());
  const auto* callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->isInStdNamespace() || !callee->getIdentifier() ||
      callee->getName() != (max ? "max" : "min") || call->getNumArgs() != 2)
    return nullptr;
  return call;
}

bool calls_beyond_extent(const clang::Expr& e) {
  struct Calls : clang::RecursiveASTVisitor<Calls> {
    bool other = false;
    bool VisitCallExpr(clang::CallExpr* call) {
      if (min_max_call(*call, true) || min_max_call(*call, false))
        return true; // values alone: the launch may evaluate them again
      if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
          member && member->getMethodDecl() && member->getMethodDecl()->getName() == "extent")
        return true;
      if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
          op && op->getOperator() == clang::OO_Subscript &&
          s2p_template_name(op->getArg(0)->getType()) == "extent")
        return true;
      other = true;
      return false;
    }
  } calls;
  calls.TraverseStmt(const_cast<clang::Expr*>(&e));
  return calls.other;
}

std::optional<TileStep::FieldExtent> field_extent(const clang::Expr& e,
                                                  const clang::ASTContext& ctx) {
  const clang::Expr* value = strip(&e);
  if (const auto term = constant_term(*value, ctx)) {
    auto extent = field_extent(*term->base, ctx);
    if (extent)
      extent->offset += term->constant;
    return extent;
  }
  const auto* subscript = llvm::dyn_cast<clang::CXXOperatorCallExpr>(value);
  if (!subscript || subscript->getOperator() != clang::OO_Subscript)
    return std::nullopt;
  const auto* call =
      llvm::dyn_cast<clang::CXXMemberCallExpr>(subscript->getArg(0)->IgnoreImplicit());
  clang::Expr::EvalResult axis;
  if (!call || !call->getMethodDecl() || call->getMethodDecl()->getName() != "extent" ||
      !subscript->getArg(1)->EvaluateAsInt(axis, ctx))
    return std::nullopt;
  // Elements, not blocks: a field or an agile view (an s2p::tiles view counts blocks).
  const auto* object = llvm::dyn_cast_or_null<clang::VarDecl>(
      referenced_decl(call->getImplicitObjectArgument()->IgnoreImplicit()));
  const std::string type =
      object ? s2p_template_name(object->getType().getNonReferenceType()) : std::string();
  if (type != "field" && type != "agile_field")
    return std::nullopt;
  return TileStep::FieldExtent{object->getNameAsString(),
                               static_cast<int>(axis.Val.getInt().getExtValue()), 0};
}

std::optional<TileStep::KernelSymbol>
KernelExtractor::Impl::kernel_symbol(const clang::Expr& e) const {
  const clang::Expr* value = strip(&e);
  if (const auto step = constant_term(*value, ctx_)) {
    auto symbol = kernel_symbol(*step->base);
    if (symbol)
      symbol->offset += step->constant;
    return symbol;
  }
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(referenced_decl(value));
  if (!var || !kernel_decl_ || !kernel_decl_->getBody() || !var->getType()->isIntegerType() ||
      var->getType()->isReferenceType() || var->getParentFunctionOrMethod() != kernel_decl_)
    return std::nullopt;
  // Its value when a forall launches is the one every iteration sees: nothing in the kernel
  // changes it but the increment of the loop around steps that declares it.
  const clang::ForStmt* loop = declaring_loop(*var, ctx_);
  if (may_write(*kernel_decl_->getBody(), *var, loop ? loop->getInc() : nullptr))
    return std::nullopt;
  auto [named, fresh] = symbol_names_.try_emplace(var, var->getNameAsString());
  if (fresh) {
    int same = 0;
    for (const auto& [other, name] : symbol_names_)
      same += other != var && other->getName() == var->getName();
    if (same > 0)
      named->second += "_" + std::to_string(same);
  }
  return TileStep::KernelSymbol{named->second, var->getNameAsString(), 0};
}

void KernelExtractor::Impl::add_guard_terms(const clang::Expr& condition, bool negate,
                                            const clang::ParmVarDecl& i,
                                            std::vector<TileStep::IndexBound>& guard,
                                            const HelperArguments* through) const {
  const clang::Expr* e = strip(&condition);
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(e);
      unary && unary->getOpcode() == clang::UO_LNot)
    return add_guard_terms(*unary->getSubExpr(), !negate, i, guard, through);
  const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (!bin)
    return;
  // a && b holds: both do; a || b fails: both fail. (The other two give no bound.)
  if (bin->getOpcode() == (negate ? clang::BO_LOr : clang::BO_LAnd)) {
    add_guard_terms(*bin->getLHS(), negate, i, guard, through);
    add_guard_terms(*bin->getRHS(), negate, i, guard, through);
    return;
  }
  // Bounds hold in the integers only when C++ compares as signed integers (0ul compares
  // modulo 2^64); a value the launch would have to call something for is left out too.
  if (!bin->isComparisonOp() || !bin->getLHS()->getType()->isSignedIntegerType())
    return;
  clang::BinaryOperatorKind op = negate ? negated(bin->getOpcode()) : bin->getOpcode();
  const clang::Expr* value = bin->getRHS();
  // The index's side: i[a] + c, or that plus values of the kernel, which move to the other side.
  std::string moved;
  const auto index_side = [&](const clang::Expr* side) {
    if (auto term = index_term(side, i, ctx_))
      return term;
    if (through) { // a helper's or lambda's parameters, read as the call's arguments
      if (auto term = resolved_index_term(side, i, through, ctx_))
        return term;
    }
    if (helper_scope(through)) // a helper's names are not the kernel's: no values move over
      return std::optional<std::pair<int, std::int64_t>>{};
    const auto shifted = shifted_index_term(
        side, i, ctx_,
        [&](const clang::Expr& x) { return kernel_value(x, i, nullptr) && !calls_beyond_extent(x); },
        [&](const clang::Expr& x) { return text(x.getSourceRange()); });
    moved = shifted ? shifted->moved : "";
    return shifted ? std::optional(shifted->term) : std::nullopt;
  };
  auto term = index_side(bin->getLHS());
  if (!term) {
    term = index_side(bin->getRHS());
    value = bin->getLHS();
    op = swapped(op);
  }
  if (!term)
    return;
  value = body_value(value, through, ctx_);
  if (!value)
    return;
  if (const auto other = index_term(value, i, ctx_)) { // i[a] + c OP i[b] + d: a triangle
    if (moved.empty())
      add_index_bounds(op, *term, *other, text(value->getSourceRange()), guard);
    return;
  }
  if (!kernel_value(*strip(value), i, nullptr) || calls_beyond_extent(*value))
    return;
  clang::Expr::EvalResult known;
  std::optional<std::int64_t> constant;
  if (moved.empty() && value->EvaluateAsInt(known, ctx_))
    constant = known.Val.getInt().getExtValue();
  // A bound with values moved over is C++ the launch evaluates; the relations leave it out.
  const std::string text_of_value =
      moved.empty() ? text(value->getSourceRange()) : "(" + text(value->getSourceRange()) + ")" + moved;
  const auto [axis, offset] = *term;
  const std::optional<TileStep::KernelSymbol> symbol =
      constant || !moved.empty() ? std::nullopt : kernel_symbol(*value);
  // The bound on i[axis] (value + add) as the relations read it: a symbol, offset by `add`.
  const auto with_symbol = [&symbol](TileStep::IndexBound b, std::int64_t add) {
    if (symbol)
      b.symbol = TileStep::KernelSymbol{symbol->name, symbol->variable, symbol->offset + add};
    return b;
  };
  // i[axis] != 0 - offset: an index is never below 0, so it is at least 1 - offset (the
  // `else` of `if (i[0] == 0)`).
  if (op == clang::BO_NE && constant && *constant - offset == 0) {
    guard.push_back(bound(axis, false, text_of_value, constant, -offset + 1));
    return;
  }
  if (op == clang::BO_NE) { // i[axis] != value - offset: either side of it
    TileStep::IndexBound excluded = with_symbol(bound(axis, false, text_of_value, constant, -offset), -offset);
    excluded.excluded = true;
    excluded.bounds_at_edge = !names_loop_variable(*bin, ctx_);
    guard.push_back(std::move(excluded));
    return;
  }
  // i[axis] + offset OP value, as bounds on i[axis]: lower inclusive, upper exclusive.
  if (op == clang::BO_LT || op == clang::BO_LE || op == clang::BO_EQ) {
    const std::int64_t add = -offset + (op == clang::BO_LT ? 0 : 1);
    guard.push_back(with_symbol(bound(axis, true, text_of_value, constant, add), add));
  }
  if (op == clang::BO_GT || op == clang::BO_GE || op == clang::BO_EQ) {
    const std::int64_t add = -offset + (op == clang::BO_GT ? 1 : 0);
    guard.push_back(with_symbol(bound(axis, false, text_of_value, constant, add), add));
  }
}

// The statement around `child`: its parent, or for an initializer (`const auto a = At(...);`)
// the declaration statement holding the variable it initializes.
const clang::Stmt* KernelExtractor::Impl::parent_statement(const clang::Stmt& child) const {
  const auto parents = ctx_.getParents(child);
  if (parents.empty())
    return nullptr;
  if (const auto* statement = parents[0].get<clang::Stmt>())
    return statement;
  const auto* var = parents[0].get<clang::VarDecl>();
  if (!var)
    return nullptr;
  const auto holders = ctx_.getParents(*var);
  return holders.empty() ? nullptr : holders[0].get<clang::DeclStmt>();
}

std::vector<TileStep::IndexBound> KernelExtractor::Impl::guard_of(const clang::Stmt& access,
                                                                  const clang::ParmVarDecl& i,
                                                                  const clang::Stmt& body,
                                                                  const HelperArguments* through) const {
  std::vector<TileStep::IndexBound> guard;
  const clang::Stmt* child = &access;
  while (child != &body) {
    const clang::Stmt* parent = parent_statement(*child);
    if (!parent)
      break;
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(parent);
        branch && !branch->hasInitStorage() && !branch->hasVarStorage()) {
      if (child == branch->getThen())
        add_guard_terms(*branch->getCond(), false, i, guard, through);
      else if (child == branch->getElse())
        add_guard_terms(*branch->getCond(), true, i, guard, through);
    } else if (const auto* choice = llvm::dyn_cast<clang::ConditionalOperator>(parent)) {
      if (child == choice->getTrueExpr())
        add_guard_terms(*choice->getCond(), false, i, guard, through);
      else if (child == choice->getFalseExpr())
        add_guard_terms(*choice->getCond(), true, i, guard, through);
    } else if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(parent)) {
      // `if (...) return;` before the statement: past it, the condition failed.
      for (const clang::Stmt* before : block->body()) {
        if (before == child)
          break;
        if (const auto* early = llvm::dyn_cast<clang::IfStmt>(before);
            early && !early->getElse() && !early->hasInitStorage() && !early->hasVarStorage() &&
            returns(early->getThen()))
          add_guard_terms(*early->getCond(), true, i, guard, through);
      }
    }
    child = parent;
  }
  return guard;
}

} // namespace s2p::frontend
