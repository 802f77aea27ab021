// `if` statements whose condition is static: comparisons of integer expressions over loop
// variables, index scalars, constants and kernel parameters, combined with && || !. Such a
// condition reads no data, so it takes the same value in the sequential program and in
// every warp; the passes resolve it per iteration. A condition that reads anything else
// (data, a global, a call's result) is refused here, naming what it reads.
#include "frontend/kernel_extractor_impl.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

namespace s2p::frontend {

namespace {

constexpr const char* kConditionRule =
    "a kernel's 'if' conditions may only compare loop indices, constants and kernel "
    "parameters (control flow must not depend on data)";

std::optional<ir::Condition::Op> comparison(clang::BinaryOperatorKind op) {
  switch (op) {
  case clang::BO_LT:
    return ir::Condition::Op::Less;
  case clang::BO_LE:
    return ir::Condition::Op::LessEqual;
  case clang::BO_GT:
    return ir::Condition::Op::Greater;
  case clang::BO_GE:
    return ir::Condition::Op::GreaterEqual;
  case clang::BO_EQ:
    return ir::Condition::Op::Equal;
  case clang::BO_NE:
    return ir::Condition::Op::NotEqual;
  default:
    return std::nullopt;
  }
}

} // namespace

// The first name in `cond` that is not a loop index, index scalar, constant or kernel
// parameter, else the first call whose value is not a constant: what would make the
// condition depend on data. Unevaluated operands (sizeof) read nothing.
struct KernelExtractor::Impl::DataReadFinder : clang::RecursiveASTVisitor<DataReadFinder> {
  const Impl* self = nullptr;
  const clang::Expr* read = nullptr;
  std::string read_what;
  const clang::Expr* call = nullptr;
  std::string call_what;

  const clang::Expr* found() const { return read ? read : call; }
  const std::string& what() const { return read ? read_what : call_what; }

  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr*) { return true; }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const clang::ValueDecl* decl = ref->getDecl();
    if (const Binding* b = self->lookup(decl)) {
      if (b->kind == Binding::Kind::Int)
        return true;
    } else if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
               llvm::isa<clang::EnumConstantDecl, clang::FunctionDecl>(decl) ||
               (var && var->isUsableInConstantExpressions(self->ctx_))) {
      return true; // a constant, or a function (calls are reported by VisitCallExpr)
    }
    read = ref;
    read_what = "reads '" + decl->getNameAsString() +
                "', which is not a loop index, constant or kernel parameter";
    return false;
  }
  bool VisitCallExpr(clang::CallExpr* e) {
    clang::Expr::EvalResult result;
    if (call || (!e->isValueDependent() && e->EvaluateAsRValue(result, self->ctx_)))
      return true; // a constexpr call with constant arguments: a constant
    const auto* callee = e->getDirectCallee();
    call = e;
    call_what = "calls " +
                (callee ? '\'' + callee->getNameAsString() + '\'' : std::string("a function")) +
                ", whose result seq2par cannot know before the kernel runs";
    return true; // a read of data inside it says more
  }
};

void KernelExtractor::Impl::visit_if(const clang::IfStmt& branch, ir::ScheduleNode& parent,
                                     int warp) {
  if (branch.isConsteval()) {
    error(branch.getBeginLoc(), "'if consteval' is not supported in a kernel");
    return;
  }
  if (branch.getInit() || branch.getConditionVariable()) {
    error(branch.getInit() ? branch.getInit()->getBeginLoc() : branch.getCond()->getBeginLoc(),
          "an 'if' in a kernel must not declare variables or have an initializer; declare "
          "the index before the 'if'");
    return;
  }
  auto condition = static_condition(*branch.getCond());
  if (!condition)
    return;
  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::If;
  node.loc = loc(branch.getBeginLoc());
  keep_condition_symbols(*condition, node.loc);
  node.condition = std::move(*condition);
  node.children.push_back(branch_node(*branch.getThen(), branch.getRParenLoc(), warp));
  if (const clang::Stmt* otherwise = branch.getElse())
    node.children.push_back(branch_node(*otherwise, branch.getElseLoc(), warp));
  parent.children.push_back(std::move(node));
}

// A kernel parameter the condition reads is resolved at transpile time, so the generated
// body may no longer mention it: keep a reference (-Wunused-parameter).
void KernelExtractor::Impl::keep_condition_symbols(const ir::Condition& condition,
                                                   const ir::SourceLocation& where) {
  for (const std::string& name : condition.variables()) {
    if (std::find(kernel_.symbols.begin(), kernel_.symbols.end(), name) == kernel_.symbols.end())
      continue;
    const bool kept = std::any_of(kernel_.kept_references.begin(), kernel_.kept_references.end(),
                                  [&](const auto& kept) { return kept.first == name; });
    if (!kept)
      kernel_.kept_references.emplace_back(
          name, "read by the condition at line " + std::to_string(where.line) +
                    ", which seq2par resolved while expanding the loops");
  }
}

// One branch of an `if` as a Block; a `#pragma s2p warp(N)` between the condition (or
// `else`) and the branch applies to it, as it does to a loop's body.
ir::ScheduleNode KernelExtractor::Impl::branch_node(const clang::Stmt& body,
                                                    clang::SourceLocation after, int warp) {
  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Block;
  node.loc = loc(body.getBeginLoc());
  const int own = take_pragma(after, body.getBeginLoc());
  scopes_.emplace_back();
  ++block_depth_;
  visit_statement(&body, node, own >= 0 ? own : warp, false);
  --block_depth_;
  scopes_.pop_back();
  return node;
}

std::optional<ir::Condition> KernelExtractor::Impl::static_condition(const clang::Expr& cond) {
  // What it reads first: a call or a read of data also counts as a side effect to Clang.
  DataReadFinder finder;
  finder.self = this;
  finder.TraverseStmt(const_cast<clang::Expr*>(&cond));
  if (const clang::Expr* found = finder.found()) {
    error(found->getBeginLoc(),
          "the condition of this 'if' " + finder.what() + "; " + kConditionRule);
    return std::nullopt;
  }
  if (cond.HasSideEffects(ctx_)) {
    error(cond.getBeginLoc(),
          "the condition of this 'if' has side effects; " + std::string(kConditionRule));
    return std::nullopt;
  }
  auto out = to_condition(&cond);
  if (out)
    out->text = text(cond.getSourceRange());
  return out;
}

std::optional<ir::Condition> KernelExtractor::Impl::to_condition(const clang::Expr* e) {
  e = e->IgnoreParens();
  ir::Condition out;
  if (!e->isValueDependent() && e->EvaluateAsBooleanCondition(out.value, ctx_))
    return out; // a constant (`if (kDebug)`)
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bin->getOpcode() == clang::BO_LAnd || bin->getOpcode() == clang::BO_LOr) {
      auto lhs = to_condition(bin->getLHS());
      auto rhs = lhs ? to_condition(bin->getRHS()) : std::nullopt;
      if (!rhs)
        return std::nullopt;
      out.op = bin->getOpcode() == clang::BO_LAnd ? ir::Condition::Op::And : ir::Condition::Op::Or;
      out.operands = {std::move(*lhs), std::move(*rhs)};
      return out;
    }
    if (auto op = comparison(bin->getOpcode()))
      return to_comparison(*bin, *op);
  }
  if (const auto* un = llvm::dyn_cast<clang::UnaryOperator>(e); un && un->getOpcode() == clang::UO_LNot) {
    auto operand = to_condition(un->getSubExpr());
    if (!operand)
      return std::nullopt;
    out.op = ir::Condition::Op::Not;
    out.operands = {std::move(*operand)};
    return out;
  }
  // An integer tested for truth (`if (i % 2)`): C++ compares it with 0.
  if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
      cast && cast->getCastKind() == clang::CK_IntegralToBoolean) {
    auto value = to_ir(cast->getSubExpr(), "the condition of an 'if'");
    if (!value)
      return std::nullopt;
    out.op = ir::Condition::Op::NotEqual;
    out.rhs = ir::Expr::constant(0, value->type());
    out.lhs = std::move(*value);
    return out;
  }
  error(e->getBeginLoc(), "unsupported condition '" + text(e->getSourceRange()) +
                              "': compare integer expressions with < <= > >= == != and combine "
                              "the comparisons with && || !");
  return std::nullopt;
}

std::optional<ir::Condition>
KernelExtractor::Impl::to_comparison(const clang::BinaryOperator& bin, ir::Condition::Op op) {
  for (const clang::Expr* side : {bin.getLHS(), bin.getRHS()}) {
    if (!side->getType()->isIntegralOrEnumerationType() || side->getType()->isBooleanType()) {
      error(side->getBeginLoc(), "the condition of this 'if' compares a value of type '" +
                                     side->getType().getAsString() +
                                     "'; conditions compare integer index expressions");
      return std::nullopt;
    }
  }
  auto lhs = to_ir(bin.getLHS(), "the condition of an 'if'");
  if (!lhs)
    return std::nullopt;
  auto rhs = to_ir(bin.getRHS(), "the condition of an 'if'");
  if (!rhs)
    return std::nullopt;
  ir::Condition out;
  out.op = op;
  out.lhs = std::move(*lhs);
  out.rhs = std::move(*rhs);
  return out;
}

} // namespace s2p::frontend
