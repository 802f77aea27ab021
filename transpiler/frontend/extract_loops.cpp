// `for` loops: expanded at transpile time, or kept as loops with a run-time trip count.
#include "frontend/kernel_extractor_impl.h"

#include "frontend/access_model.h"

#include "frontend/s2p_types.h"
#include "frontend/unsupported_constructs.h"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

// A message opening with a quoted name starts with the char '\'' rather than "'": GCC 12 reports
// a false -Wstringop-overflow for a one-character string literal plus a temporary std::string
// (GCC bug 105651).

namespace s2p::frontend {

// A kernel loop's header: for (T var = start; var <op> bound; var += step), with the bound
// made exclusive.
struct KernelExtractor::Impl::LoopHeader {
  const clang::VarDecl* var = nullptr;
  ir::IntType var_type;
  ir::Expr start;
  ir::Expr exclusive_bound;
  std::int64_t step = 0;
};

// The condition: var < bound, var <= bound, var > bound, var >= bound, var != bound (or
// mirrored).
struct KernelExtractor::Impl::LoopCondition {
  const clang::BinaryOperator* cond = nullptr;
  clang::BinaryOperatorKind op = clang::BO_LT; // with the variable on the left
  ir::Expr bound;
};

std::optional<KernelExtractor::Impl::LoopCondition>
KernelExtractor::Impl::loop_condition(const clang::ForStmt& loop, const clang::VarDecl& var,
                                      const ir::IntType& var_type) {
  const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      loop.getCond() ? loop.getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || !cond->isComparisonOp() || cond->getOpcode() == clang::BO_EQ ||
      cond->getOpcode() == clang::BO_Cmp) {
    error(loop.getCond() ? loop.getCond()->getBeginLoc() : loop.getBeginLoc(),
          "the loop condition must compare '" + var.getNameAsString() +
              "' with a bound (<, <=, >, >= or !=)");
    return std::nullopt;
  }
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr* bound_expr = cond->getRHS();
  if (referenced_decl(cond->getLHS()) != &var) {
    if (referenced_decl(cond->getRHS()) != &var) {
      error(cond->getBeginLoc(), "the loop condition must compare the induction variable '" +
                                     var.getNameAsString() + "' itself with a bound");
      return std::nullopt;
    }
    bound_expr = cond->getLHS();
    op = clang::BinaryOperator::reverseComparisonOp(op);
  }
  auto bound = to_ir(bound_expr, "a loop bound");
  if (!bound)
    return std::nullopt;
  // The comparison runs in the common type of the variable and the bound: a variable that
  // type cannot hold (int compared as unsigned) would compare as another value.
  const clang::Expr* compared = referenced_decl(cond->getLHS()) == &var ? cond->getLHS()
                                                                         : cond->getRHS();
  if (auto common = int_type(compared->getType());
      !common || !common->holds_every_value_of(var_type)) {
    error(cond->getOperatorLoc(),
          "the loop condition compares '" + var.getNameAsString() + "' (" + var_type.spelling +
              ") as '" + compared->getType().getAsString() +
              "', which changes some of its values; give the variable and the bound types "
              "whose comparison keeps every value (e.g. both signed)");
    return std::nullopt;
  }
  return LoopCondition{cond, op, std::move(*bound)};
}

// The increment: ++i, i++, --i, i--, i += c, i -= c (c a nonzero constant).
std::optional<std::int64_t> KernelExtractor::Impl::loop_step(const clang::ForStmt& loop,
                                                             const clang::VarDecl& var) {
  std::optional<std::int64_t> step;
  const clang::Expr* inc = loop.getInc() ? loop.getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto* un = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc);
      un && referenced_decl(un->getSubExpr()) == &var) {
    if (un->isIncrementOp())
      step = 1;
    if (un->isDecrementOp())
      step = -1;
  } else if (const auto* compound = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc);
             compound && referenced_decl(compound->getLHS()) == &var) {
    clang::Expr::EvalResult result;
    if ((compound->getOpcode() == clang::BO_AddAssign ||
         compound->getOpcode() == clang::BO_SubAssign) &&
        compound->getRHS()->EvaluateAsInt(result, ctx_)) {
      const std::int64_t c = result.Val.getInt().getExtValue();
      step = compound->getOpcode() == clang::BO_AddAssign ? c : -c;
    }
  }
  if (!step || *step == 0) {
    const std::string name = var.getNameAsString();
    error(inc ? inc->getBeginLoc() : loop.getBeginLoc(),
          "the loop increment must be ++" + name + ", --" + name + ", " + name + " += c or " +
              name + " -= c with a nonzero constant c");
    return std::nullopt;
  }
  return step;
}

std::optional<KernelExtractor::Impl::LoopHeader>
KernelExtractor::Impl::loop_header(const clang::ForStmt& loop) {
  const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop.getInit());
  const auto* var = init && init->isSingleDecl()
                        ? llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl())
                        : nullptr;
  if (!var || !var->getType()->isIntegralOrEnumerationType() || !var->getInit()) {
    error(
        loop.getBeginLoc(),
        "a kernel loop must declare one integer induction variable: for (int i = lo; i < hi; ++i)");
    return std::nullopt;
  }
  const auto var_type = int_type(var->getType());
  if (!var_type) {
    error(var->getLocation(), "the induction variable '" + var->getNameAsString() +
                                  "' must have an integer type of at most 64 bits (not bool)");
    return std::nullopt;
  }
  auto start = to_ir(var->getInit(), "a loop start");
  if (!start)
    return std::nullopt;
  auto condition = loop_condition(loop, *var, *var_type);
  if (!condition)
    return std::nullopt;
  const auto step = loop_step(loop, *var);
  if (!step)
    return std::nullopt;
  const clang::BinaryOperatorKind op = condition->op;
  const bool up = op == clang::BO_LT || op == clang::BO_LE || (op == clang::BO_NE && *step == 1);
  const bool down = op == clang::BO_GT || op == clang::BO_GE || (op == clang::BO_NE && *step == -1);
  if ((up && *step < 0) || (down && *step > 0) || (!up && !down)) {
    error(condition->cond->getOperatorLoc(),
          "the loop condition and increment disagree (the loop would never end or never run "
          "as written); with '!=' the step must be 1 or -1");
    return std::nullopt;
  }
  ir::Expr exclusive = condition->bound;
  if (op == clang::BO_LE)
    exclusive =
        ir::Expr::binary(ir::Expr::Op::Add, exclusive, ir::Expr::constant(1)).substitute({});
  if (op == clang::BO_GE)
    exclusive =
        ir::Expr::binary(ir::Expr::Op::Sub, exclusive, ir::Expr::constant(1)).substitute({});
  return LoopHeader{var, *var_type, std::move(*start), std::move(exclusive), *step};
}

void KernelExtractor::Impl::visit_for(const clang::ForStmt& loop, ir::ScheduleNode& parent,
                                      int warp) {
  auto header = loop_header(loop);
  if (!header)
    return;
  const clang::VarDecl* var = header->var;
  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Loop;
  node.loc = loc(loop.getBeginLoc());
  node.name = loop_variable_name(var->getNameAsString());
  node.var_type = var->getType().getUnqualifiedType().getAsString(ctx_.getPrintingPolicy());
  node.var_int_type = header->var_type;
  node.init = std::move(header->start);
  node.bound = std::move(header->exclusive_bound);
  node.step = header->step;
  scopes_.emplace_back();
  bind(var, {Binding::Kind::Int, -1, ir::Expr::variable(node.name, header->var_type), "", false});
  live_loop_names_.insert(node.name);
  ++loop_depth_;
  const clang::Stmt* body = loop.getBody();
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body)) {
    const int own = take_pragma(loop.getRParenLoc(), block->getLBracLoc());
    visit_body(*block, node, own >= 0 ? own : warp);
  } else {
    const int own = take_pragma(loop.getRParenLoc(), body->getBeginLoc());
    visit_statement(body, node, own >= 0 ? own : warp, false);
  }
  --loop_depth_;
  live_loop_names_.erase(live_loop_names_.find(node.name));
  scopes_.pop_back();
  parent.children.push_back(std::move(node));
}

} // namespace s2p::frontend
