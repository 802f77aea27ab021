// Kernel bodies statement by statement: pragmas, the body rules, declarations of scalars,
// tensors and pool tensors.
#include "frontend/kernel_extractor_impl.h"

#include "frontend/access_model.h"

#include "frontend/s2p_types.h"
#include "frontend/unsupported_constructs.h"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

// A message opening with a quoted name starts with the char '\'' rather than "'": GCC 12 reports
// a false -Wstringop-overflow for a one-character string literal plus a temporary std::string
// (GCC bug 105651).

namespace s2p::frontend {


int KernelExtractor::Impl::take_pragma(clang::SourceLocation after, clang::SourceLocation before) {
  int warp = -1;
  for (WarpPragma* pragma : pragmas_.between(sm_, after, before)) {
    pragma->consumed = true;
    if (warp >= 0 && warp != pragma->warp) {
      error(pragma->loc, "conflicting '#pragma s2p warp' for one statement (warp " +
                             std::to_string(warp) + " and warp " + std::to_string(pragma->warp) +
                             ")");
      continue;
    }
    warp = pragma->warp;
  }
  return warp;
}

void KernelExtractor::Impl::check_body_rules(const clang::Stmt& body) {
  const int found = report_unsupported_constructs(
      body, ctx_,
      [this](clang::SourceLocation where, const std::string& m) { report_error(ctx_, where, m); });
  if (found)
    failed_ = true;
}

void KernelExtractor::Impl::visit_body(const clang::CompoundStmt& body, ir::ScheduleNode& parent,
                                       int warp, bool function_body) {
  clang::SourceLocation cursor = body.getLBracLoc();
  const auto* last = body.body_empty() ? nullptr : body.body_back();
  for (const clang::Stmt* child : body.body()) {
    const int own = take_pragma(cursor, child->getBeginLoc());
    visit_statement(child, parent, own >= 0 ? own : warp, function_body && child == last);
    cursor = child->getEndLoc();
  }
  for (WarpPragma* dangling : pragmas_.between(sm_, cursor, body.getRBracLoc())) {
    dangling->consumed = true;
    error(dangling->loc, "'#pragma s2p warp' must be followed by a statement in the same block");
  }
}

void KernelExtractor::Impl::visit_statement(const clang::Stmt* stmt, ir::ScheduleNode& parent,
                                            int warp, bool last_in_function) {
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(stmt)) {
    ir::ScheduleNode node;
    node.kind = ir::ScheduleNode::Kind::Block;
    node.loc = loc(block->getBeginLoc());
    scopes_.emplace_back();
    ++block_depth_;
    visit_body(*block, node, warp);
    --block_depth_;
    scopes_.pop_back();
    parent.children.push_back(std::move(node));
    return;
  }
  if (llvm::isa<clang::NullStmt>(stmt))
    return;
  if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt))
    return visit_declaration(*decl, parent);
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(stmt))
    return visit_for(*loop, parent, warp);
  if (const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(stmt)) {
    if (ret->getRetValue())
      error(ret->getBeginLoc(),
            "a kernel or the helper functions it calls must not return a value");
    else if (!last_in_function)
      error(ret->getBeginLoc(),
            "'return' is only allowed as the last statement of a kernel or helper function");
    return;
  }
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(stmt); branch && branch->isConstexpr()) {
    const auto taken = branch->getCond()->EvaluateKnownConstInt(ctx_).getBoolValue()
                           ? branch->getThen()
                           : branch->getElse();
    if (taken)
      visit_statement(taken, parent, warp, false);
    return;
  }
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(stmt))
    return visit_if(*branch, parent, warp);
  // Constructs the rule table reports (while, switch, goto, ...): already diagnosed.
  if (llvm::isa<clang::WhileStmt, clang::DoStmt, clang::SwitchStmt, clang::GotoStmt,
                clang::LabelStmt, clang::BreakStmt, clang::ContinueStmt, clang::CXXTryStmt,
                clang::CXXForRangeStmt>(stmt))
    return;
  if (const auto* e = llvm::dyn_cast<clang::Expr>(stmt)) {
    const clang::Expr* inner = strip(e);
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(inner);
        call && !llvm::isa<clang::CXXOperatorCallExpr>(call))
      return visit_call(*call, parent, warp);
    if (llvm::isa<clang::BinaryOperator, clang::CXXOperatorCallExpr, clang::UnaryOperator,
                  clang::CXXThrowExpr, clang::LambdaExpr, clang::ConditionalOperator>(inner))
      return; // reported by the rule table
    error(stmt->getBeginLoc(),
          "only calls to intrinsics or to helper functions can be statements in a kernel");
    return;
  }
  error(stmt->getBeginLoc(),
        std::string("'") + stmt->getStmtClassName() + "' is not supported in a kernel");
}

void KernelExtractor::Impl::visit_declaration(const clang::DeclStmt& stmt, ir::ScheduleNode&) {
  bool preamble_added = false;
  for (const clang::Decl* decl : stmt.decls()) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!var) {
      error(decl->getBeginLoc(), "only variable declarations are allowed in a kernel");
      continue;
    }
    const int errors_before = errors_;
    visit_variable(*var, stmt, preamble_added);
    if (errors_ > errors_before && !lookup(var))
      bind(var, {Binding::Kind::Refused, -1, {}, "", false});
  }
}

// The declaration `stmt` becomes a statement of the kernel's preamble (once, however many
// variables it declares), and `var` a name the generated code keeps.
void KernelExtractor::Impl::add_to_preamble(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                            bool& preamble_added) {
  if (!preamble_added)
    kernel_.preamble.push_back(text(stmt.getSourceRange()));
  preamble_added = true;
  kernel_names_.insert(var.getNameAsString());
}

void KernelExtractor::Impl::visit_variable(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                           bool& preamble_added) {
  const std::string name = var.getNameAsString();
  const std::string kind = s2p_template_name(var.getType());
  if (var.isStaticLocal() || var.hasExternalStorage()) {
    error(var.getLocation(), "static or extern variables are not supported in a kernel");
    return;
  }
  if (const int block = var.getInit() ? tile_block_tensor(var.getInit()) : -1; block >= 0) {
    // `auto c = Ct(b);` in a task split into warps: c names that tile block. The declaration
    // runs once, before the warps start, so it must be at the top of the task: inside a loop
    // it would be taken out of the loop, away from the loop's variable.
    if (!at_kernel_top())
      error(var.getLocation(),
            "declare tile block '" + name +
                "' at the top level of the task, not in a loop or block: the task's "
                "declarations run once, before its warps start; pass the block (Xt(...) or a "
                "section of it) to the intrinsic directly instead");
    section_grid_is_plain(strip(var.getInit()), var); // reported; still names the block
    bind(&var, {Binding::Kind::Tensor, block, {}, "", true});
    add_to_preamble(var, stmt, preamble_added);
    return;
  }
  if (kind == "pool")
    return visit_pool(var, stmt, preamble_added);
  if (kind == "pool_tensor")
    return visit_pool_tensor(var, stmt, preamble_added);
  if (kind == "tensor_ref")
    return visit_tensor_ref(var, stmt, preamble_added);
  if (kind == "view" || kind == "in" || kind == "out" || kind == "inout") {
    error(var.getLocation(),
          "sub-tensor views cannot be stored in kernel variables; pass the sub-tensor (like t[i]) "
          "to the intrinsic directly");
    return;
  }
  if (var.getType()->isIntegralOrEnumerationType())
    return visit_integer(var, stmt, preamble_added);
  if (!at_kernel_top()) {
    error(var.getLocation(),
          "variable '" + name + "' of type '" + var.getType().getAsString() +
              "' must be declared at the top level of the kernel (in loops and helpers only "
              "integer indices and tensors can be declared)");
    return;
  }
  if (var.getInit() && var.getInit()->HasSideEffects(ctx_)) {
    error(var.getInit()->getBeginLoc(),
          "the initializer of '" + name + "' has side effects, which a kernel must not have");
    return;
  }
  bind(&var, {Binding::Kind::Opaque, -1, {}, "", true});
  add_to_preamble(var, stmt, preamble_added);
}

void KernelExtractor::Impl::visit_pool(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                       bool& preamble_added) {
  const std::string name = var.getNameAsString();
  if (!at_kernel_top()) {
    error(var.getLocation(),
          "declare pool '" + name + "' at the top level of the kernel, not in a loop, block or helper");
    return;
  }
  if (var.getType()->isReferenceType()) {
    error(var.getLocation(), "pool '" + name + "' must be a variable, not a reference");
    return;
  }
  const auto args = integer_template_args(var.getType());
  ir::Pool pool{name, element_type_of(var.getType(), ctx_), args.empty() ? 0 : args.back(),
                loc(var.getLocation()), 0, std::nullopt};
  if (const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
          var.getType().getNonReferenceType()->getAsCXXRecordDecl()))
    pool.element_bytes =
        ctx_.getTypeSizeInChars(spec->getTemplateArgs()[0].getAsType()).getQuantity();
  kernel_.pools.push_back(pool);
  bind(&var, {Binding::Kind::Pool, static_cast<int>(kernel_.pools.size()) - 1, {}, "", true});
  add_to_preamble(var, stmt, preamble_added);
}

void KernelExtractor::Impl::visit_tensor_ref(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                             bool& preamble_added) {
  const std::string name = var.getNameAsString();
  if (!at_kernel_top()) {
    error(var.getLocation(), "declare tensor_ref '" + name + "' at the top level of the kernel");
    return;
  }
  if (var.getInit() && (mentions(var.getInit(), Binding::Kind::Tensor) ||
                        mentions(var.getInit(), Binding::Kind::Pool))) {
    error(var.getLocation(),
          "tensor_ref '" + name +
              "' is built over memory the kernel already reaches through another tensor or "
              "pool; seq2par orders accesses per tensor_ref, so two views of one buffer would "
              "race: use sub-tensors of the one tensor instead");
    return;
  }
  ir::Tensor tensor;
  tensor.name = name;
  tensor.kind = ir::TensorKind::Ref;
  tensor.element_type = element_type_of(var.getType(), ctx_);
  tensor.loc = loc(var.getLocation());
  kernel_.tensors.push_back(tensor);
  bind(&var, {Binding::Kind::Tensor, static_cast<int>(kernel_.tensors.size()) - 1, {}, "", true});
  add_to_preamble(var, stmt, preamble_added);
}

// An integer of the kernel: its value folds into the calls that use it.
void KernelExtractor::Impl::visit_integer(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                          bool& preamble_added) {
  const std::string name = var.getNameAsString();
  if (!var.getInit()) {
    error(var.getLocation(), "integer '" + name + "' must be initialized where it is declared");
    return;
  }
  auto value = to_ir(var.getInit(), ("the initializer of '" + name + "'").c_str());
  if (!value)
    return;
  const bool top = at_kernel_top();
  bind(&var, {Binding::Kind::Int, -1, std::move(*value), "", top});
  if (top) {
    add_to_preamble(var, stmt, preamble_added);
    kernel_.kept_references.emplace_back(name, "its uses are folded into the calls below");
  }
}

// The tunable constant (S2P_TUNABLE) a pool tensor's slot count is written as
// (`pool.tensor<kDepth, N>(offset)`): the pool's ring depth is then a knob a tuning plan turns.
std::optional<ir::Tunable>
KernelExtractor::Impl::tunable_slot_count(const clang::CXXMemberCallExpr& call) {
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(call.getCallee()->IgnoreParenImpCasts());
  if (!member || member->getNumTemplateArgs() < 2)
    return std::nullopt;
  const clang::TemplateArgumentLoc& slots = member->getTemplateArgs()[0];
  if (slots.getArgument().getKind() != clang::TemplateArgument::Expression)
    return std::nullopt;
  const auto* ref =
      llvm::dyn_cast<clang::DeclRefExpr>(slots.getSourceExpression()->IgnoreParenImpCasts());
  const auto* var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->getInit() || !var->getInit()->getBeginLoc().isMacroID())
    return std::nullopt;
  const auto& sm = ctx_.getSourceManager();
  if (clang::Lexer::getImmediateMacroName(var->getInit()->getBeginLoc(), sm, ctx_.getLangOpts()) !=
      "S2P_TUNABLE")
    return std::nullopt;
  // S2P_TUNABLE(v[, min, max]) is a call of s2p::detail::tunable with those arguments.
  const auto* tunable = llvm::dyn_cast<clang::CallExpr>(var->getInit()->IgnoreParenImpCasts());
  if (!tunable)
    return std::nullopt;
  std::vector<std::int64_t> args;
  for (const clang::Expr* arg : tunable->arguments()) {
    clang::Expr::EvalResult value;
    if (!arg->EvaluateAsInt(value, ctx_))
      return std::nullopt;
    args.push_back(value.Val.getInt().getExtValue());
  }
  if (args.size() != 1 && args.size() != 3)
    return std::nullopt;
  ir::Tunable out{var->getNameAsString(), args[0], std::nullopt, std::nullopt};
  if (args.size() == 3)
    out.min = args[1], out.max = args[2];
  return out;
}

void KernelExtractor::Impl::visit_pool_tensor(const clang::VarDecl& var,
                                              const clang::DeclStmt& stmt, bool& preamble_added) {
  const std::string name = var.getNameAsString();
  const clang::Expr* init = var.getInit() ? strip(var.getInit()) : nullptr;
  const auto* call = init ? llvm::dyn_cast<clang::CXXMemberCallExpr>(init) : nullptr;
  const auto* method = call ? call->getMethodDecl() : nullptr;
  const Binding* pool = nullptr;
  if (method && method->getName() == "tensor" && call->getNumArgs() == 1)
    if (const auto* decl = referenced_decl(call->getImplicitObjectArgument()))
      pool = lookup(decl);
  if (!pool || pool->kind != Binding::Kind::Pool) {
    error(var.getLocation(),
          "tensor '" + name +
              "' must be initialized as pool.tensor<Shape..., Size>(offset) from a "
              "pool of this kernel");
    return;
  }
  // The offset is range-checked below as written, before its conversion to size_t.
  auto offset = to_ir(without_integer_conversion(call->getArg(0)), "a tensor offset");
  if (!offset)
    return;
  const auto dims = integer_template_args(var.getType());
  ir::Tensor tensor;
  tensor.kind = ir::TensorKind::Pool;
  tensor.pool = pool->index;
  tensor.offset = *offset;
  tensor.shape.assign(dims.begin(), dims.end() - 1);
  tensor.sub_size = dims.back();
  tensor.element_type = element_type_of(var.getType(), ctx_);
  tensor.loc = loc(var.getLocation());
  if (auto depth = tunable_slot_count(*call); depth && !kernel_.pools[pool->index].depth)
    kernel_.pools[pool->index].depth = std::move(depth);
  const ir::Pool& p = kernel_.pools[pool->index];
  const std::int64_t extent = tensor.sub_tensor_count() * tensor.sub_size;
  if (offset->is_constant() && (offset->value() < 0 || offset->value() + extent > p.units)) {
    error(call->getArg(0)->getBeginLoc(),
          "tensor '" + name + "' occupies pool elements [" + std::to_string(offset->value()) + "," +
              std::to_string(offset->value() + extent) + "), which overflows pool '" + p.name +
              "' of " + std::to_string(p.units) + " elements");
    return;
  }
  const bool top = at_kernel_top();
  if (top) {
    tensor.name = name;
    if (!preamble_added)
      kernel_.preamble.push_back(text(stmt.getSourceRange()));
    preamble_added = true;
    kernel_names_.insert(name);
  } else {
    // Helper- or block-local: hoisted to kernel scope under a unique name.
    for (const auto& v : offset->variables()) {
      if (std::find(kernel_.symbols.begin(), kernel_.symbols.end(), v) == kernel_.symbols.end()) {
        error(call->getArg(0)->getBeginLoc(),
              "the offset of tensor '" + name + "' depends on loop variable '" + v +
                  "'; a tensor's place in the pool must be fixed for the whole kernel");
        return;
      }
    }
    tensor.name = unique_name(name);
    std::string shape;
    for (auto d : dims)
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    kernel_.preamble.push_back("auto " + tensor.name + " = " + p.name + ".tensor<" + shape + ">(" +
                               offset->to_cpp() + "); // " + name + ", declared at line " +
                               std::to_string(tensor.loc.line));
  }
  kernel_.tensors.push_back(tensor);
  bind(&var, {Binding::Kind::Tensor, static_cast<int>(kernel_.tensors.size()) - 1, {}, "", top});
}

} // namespace s2p::frontend
