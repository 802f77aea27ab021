// s2p::forall over agile fields: which view a forall uses (the full global view X[i],
// forall_global_view.cpp; the local-global view Xt(b), forall_local_global_view.cpp), the
// iteration box of a guarded body, the extent rule, and the counted loops inside a body.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/forall_visitors.h"
#include "frontend/access_model.h"
#include "frontend/s2p_types.h"

#include <algorithm>

namespace s2p::frontend {

std::optional<ir::TileStep> KernelExtractor::Impl::forall_step(const clang::CallExpr& call) {
  const auto* lambda =
      call.getNumArgs() == 2 ? llvm::dyn_cast<clang::LambdaExpr>(strip(call.getArg(1))) : nullptr;
  const clang::CXXMethodDecl* op = lambda ? lambda->getCallOperator() : nullptr;
  if (!op || op->getNumParams() != 1 ||
      s2p_template_name(op->getParamDecl(0)->getType()) != "index") {
    error(call.getBeginLoc(),
          "s2p::forall takes an extent and a lambda with one s2p::index<N> parameter");
    return std::nullopt;
  }
  // s2p::forall(Xt.blocks(), ...): the local-global view.
  if (const auto* blocks = llvm::dyn_cast<clang::CXXMemberCallExpr>(strip(call.getArg(0)))) {
    const clang::ValueDecl* domain = referenced_decl(blocks->getImplicitObjectArgument());
    if (blocks->getMethodDecl() && blocks->getMethodDecl()->getName() == "blocks" && domain &&
        tile_blocks_.contains(domain)) {
      if (!check_forall_body(*lambda, true))
        return std::nullopt;
      return tile_forall_step(call, *lambda, *domain);
    }
  }
  if (!check_forall_body(*lambda, false))
    return std::nullopt;
  return global_forall_step(call, *lambda);
}

// `body` is `{ if (box) statement }`, the box's every conjunct a bound of one index coordinate
// against a kernel value: the runtime may then run the index over the box alone and the
// statement without the test (TileStep::iteration_box).
void KernelExtractor::Impl::record_iteration_box(ir::TileStep& step, const clang::Stmt& body,
                                                 const clang::ParmVarDecl& i) const {
  const auto* block = llvm::dyn_cast<clang::CompoundStmt>(&body); // a lambda's body
  if (!block)
    return;
  const clang::IfStmt* branch = nullptr;
  for (const clang::Stmt* s : block->body()) {
    if (llvm::isa<clang::NullStmt>(s))
      continue;
    if (branch)
      return; // a second statement
    branch = llvm::dyn_cast<clang::IfStmt>(s);
    if (!branch)
      return;
  }
  if (!branch || branch->getElse() || branch->hasInitStorage() || branch->hasVarStorage() ||
      branch->isConstexpr() || branch->isConsteval())
    return;
  std::vector<ir::TileStep::IndexBound> box;
  if (!exact_box(*branch->getCond(), i, box) || box.empty())
    return;
  const clang::Stmt* then = branch->getThen();
  const std::string statement = text(then->getSourceRange());
  step.unguarded_statements =
      llvm::isa<clang::CompoundStmt>(then) ? statement : "{\n" + statement + ";\n}";
  step.iteration_box = std::move(box);
  step.guarded_body = step.body;
}

// Whether `condition` is a conjunction of bounds on single index coordinates that
// add_guard_terms turns into bounds exactly (no conjunct dropped, none against another
// coordinate, none excluding one value); `box` receives them.
bool KernelExtractor::Impl::exact_box(const clang::Expr& condition, const clang::ParmVarDecl& i,
                                      std::vector<ir::TileStep::IndexBound>& box) const {
  const clang::Expr* e = strip(&condition);
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e); bin && bin->getOpcode() == clang::BO_LAnd)
    return exact_box(*bin->getLHS(), i, box) && exact_box(*bin->getRHS(), i, box);
  const auto* comparison = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (!comparison || !comparison->isComparisonOp())
    return false;
  std::vector<ir::TileStep::IndexBound> bounds;
  add_guard_terms(*e, false, i, bounds);
  if (bounds.empty() || std::any_of(bounds.begin(), bounds.end(), [](const auto& b) {
        return b.against || b.excluded;
      }))
    return false;
  box.insert(box.end(), bounds.begin(), bounds.end());
  return true;
}

std::string KernelExtractor::Impl::source_of(const std::string& view) const {
  const auto it = source_parameter_.find(view);
  return it == source_parameter_.end() ? view : it->second;
}

std::string KernelExtractor::Impl::map_of(const std::string& view) const {
  const auto it = agile_map_.find(view);
  return it == agile_map_.end() ? std::string() : it->second;
}

// The tiles compute the output's elements where they are owned: every element of the output,
// and only those. A forall over another extent would compute more or fewer elements than the
// sequential loop, so the extent must be the output's: its own, its field's, or that of a field
// dealt by the same resource map (an agile field's extent is its map's parent extent).
bool KernelExtractor::Impl::domain_is_output_extent(const ir::TileStep& step,
                                                    const clang::Expr& extent) {
  const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(strip(&extent));
  const clang::ValueDecl* of = call ? referenced_decl(call->getImplicitObjectArgument()) : nullptr;
  if (of && call->getMethodDecl() && call->getMethodDecl()->getName() == "extent") {
    const std::string name = of->getNameAsString();
    if (name == step.output || source_of(name) == source_of(step.output) ||
        (!map_of(name).empty() && map_of(name) == map_of(step.output)))
      return true;
  }
  error(extent.getBeginLoc(),
        "the forall runs over this extent but writes '" + step.output +
            "', whose elements the tiles compute where they are owned (every element of it, and "
            "only those); run it over the output's extent: s2p::forall(" + step.output +
            ".extent(), ...)");
  return false;
}

namespace {

// The conjuncts of `condition` (a && b && ...) that end a loop's range (`bounds`), with whether
// each is inclusive.
template <class Bounds>
void conjunct_ends(const clang::Expr& condition, const Bounds& bounds,
                   std::vector<std::pair<const clang::Expr*, bool>>& ends) {
  const auto* c = llvm::dyn_cast<clang::BinaryOperator>(strip(&condition));
  if (!c)
    return;
  if (c->getOpcode() == clang::BO_LAnd) {
    conjunct_ends(*c->getLHS(), bounds, ends);
    conjunct_ends(*c->getRHS(), bounds, ends);
  } else if (bounds(c)) {
    ends.emplace_back(c->getRHS(), c->getOpcode() == clang::BO_LE);
  }
}

// for (T k = first; k < end; ++k / k++ / k += c): k, and [first, end) when first and end are
// constants and the body leaves k to the header. Otherwise its bounds are known only when the
// kernel runs, or depend on the index or on an outer loop: the range keeps their expressions
// when the body leaves k to the header, the comparison is signed and the condition is `k < end`
// (or `<=`), or a conjunction with such bounds among its conjuncts (`ends`), for
// index_coordinate to read as kernel values if they are.
std::optional<std::pair<const clang::VarDecl*, LoopRange>>
loop_range(const clang::ForStmt& loop, const clang::ASTContext& ctx) {
  const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop.getInit());
  const auto* var = init && init->isSingleDecl()
                        ? llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl())
                        : nullptr;
  // A bound that builds a temporary (k < Ad.extent()[1]) comes wrapped in its cleanups.
  const auto* cond =
      loop.getCond() ? llvm::dyn_cast<clang::BinaryOperator>(strip(loop.getCond())) : nullptr;
  if (!var || !var->getType()->isIntegerType() || !var->getInit() || !cond)
    return std::nullopt;
  const auto bounds = [&](const clang::BinaryOperator* c) {
    return (c->getOpcode() == clang::BO_LT || c->getOpcode() == clang::BO_LE) &&
           referenced_decl(c->getLHS()) == var;
  };
  // k < a && k < b (and other conjuncts): counted, its range inside each bound that ends it.
  std::vector<std::pair<const clang::Expr*, bool>> ends;
  if (cond->getOpcode() == clang::BO_LAnd)
    conjunct_ends(*cond, bounds, ends);
  const bool conjunction_bound = !ends.empty();
  if (!conjunction_bound && !bounds(cond))
    return std::nullopt;
  const clang::Expr* inc = loop.getInc() ? strip(loop.getInc()) : nullptr;
  const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc);
  const auto* compound = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc);
  clang::Expr::EvalResult step;
  const bool increments =
      (unary && unary->isIncrementOp() && referenced_decl(unary->getSubExpr()) == var) ||
      (compound && compound->getOpcode() == clang::BO_AddAssign &&
       referenced_decl(compound->getLHS()) == var &&
       compound->getRHS()->EvaluateAsInt(step, ctx) && step.Val.getInt().getExtValue() > 0);
  if (!increments)
    return std::nullopt;
  if (loop.getBody() && may_write(*loop.getBody(), *var))
    return std::make_pair(var, LoopRange{});
  if (conjunction_bound) {
    if (!var->getType()->isSignedIntegerType())
      return std::make_pair(var, LoopRange{});
    return std::make_pair(var, LoopRange{std::nullopt, var->getInit(), nullptr, false, ends});
  }
  const bool inclusive = cond->getOpcode() == clang::BO_LE;
  clang::Expr::EvalResult first, bound;
  if (!var->getInit()->EvaluateAsInt(first, ctx) || !cond->getRHS()->EvaluateAsInt(bound, ctx)) {
    if (!cond->getLHS()->getType()->isSignedIntegerType())
      return std::make_pair(var, LoopRange{});
    return std::make_pair(var, LoopRange{std::nullopt, var->getInit(), cond->getRHS(), inclusive});
  }
  const std::int64_t lo = first.Val.getInt().getExtValue();
  const std::int64_t hi = bound.Val.getInt().getExtValue() + (inclusive ? 1 : 0);
  if (hi <= lo)
    return std::nullopt;
  return std::make_pair(var, LoopRange{std::make_pair(lo, hi)});
}

} // namespace

KernelExtractor::Impl::LoopRanges
KernelExtractor::Impl::loop_ranges(const clang::Stmt& body) const {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::ASTContext* ctx = nullptr;
    LoopRanges ranges;
    bool VisitForStmt(clang::ForStmt* loop) {
      if (auto range = loop_range(*loop, *ctx))
        ranges.insert(*range);
      return true;
    }
  } finder;
  finder.ctx = &ctx_;
  finder.TraverseStmt(const_cast<clang::Stmt*>(&body));
  return std::move(finder.ranges);
}

} // namespace s2p::frontend
