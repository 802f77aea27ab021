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

namespace {

void report(clang::ASTContext& ctx, clang::SourceLocation loc,
            clang::DiagnosticsEngine::Level level, const std::string& message) {
  auto& diags = ctx.getDiagnostics();
  diags.Report(loc, diags.getCustomDiagID(level, "%0")) << message;
}

} // namespace

void report_error(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Error, message);
}
void report_note(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Note, message);
}
void report_warning(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Warning, message);
}

// ---------------------------------------------------------------------------------------
// Expressions

namespace {

std::optional<ir::Expr::Op> ir_operator(clang::BinaryOperatorKind op) {
  switch (op) {
  case clang::BO_Add:
    return ir::Expr::Op::Add;
  case clang::BO_Sub:
    return ir::Expr::Op::Sub;
  case clang::BO_Mul:
    return ir::Expr::Op::Mul;
  case clang::BO_Div:
    return ir::Expr::Op::Div;
  case clang::BO_Rem:
    return ir::Expr::Op::Rem;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<ir::IntType> KernelExtractor::Impl::int_type(clang::QualType type) const {
  const clang::QualType canonical = type.getCanonicalType().getUnqualifiedType();
  if (!canonical->isIntegralOrEnumerationType() || canonical->isBooleanType())
    return std::nullopt;
  const unsigned bits = ctx_.getIntWidth(canonical);
  if (bits > 64)
    return std::nullopt;
  clang::PrintingPolicy policy(ctx_.getLangOpts());
  policy.FullyQualifiedName = true;
  policy.SuppressScope = false;
  return ir::IntType{static_cast<int>(bits), canonical->isSignedIntegerOrEnumerationType(),
                     canonical.getAsString(policy)};
}

std::optional<ir::IntType> KernelExtractor::Impl::int_type_of(const clang::Expr* e,
                                                               const char* what) {
  if (auto type = int_type(e->getType()))
    return type;
  error(e->getBeginLoc(), std::string(what) + " has type '" + e->getType().getAsString() +
                              "'; index arithmetic needs integer types of at most 64 bits "
                              "(no bool)");
  return std::nullopt;
}

// Integer conversions become Cast nodes unless they change no type the arithmetic sees, so
// evaluation wraps exactly where the program does.
// An implicit conversion that keeps every value stays implicit: the compiler applies it
// again wherever the expression is printed back.
std::optional<ir::Expr> KernelExtractor::Impl::cast_to_ir(const clang::CastExpr& cast,
                                                          const char* what) {
  auto operand = to_ir(cast.getSubExpr(), what);
  if (!operand)
    return std::nullopt;
  auto to = int_type_of(&cast, what);
  if (!to)
    return std::nullopt;
  if (*to == operand->type() ||
      (llvm::isa<clang::ImplicitCastExpr>(cast) && to->holds_every_value_of(operand->type())))
    return operand;
  return ir::Expr::cast(std::move(*operand), std::move(*to)).substitute({});
}

std::optional<ir::Expr> KernelExtractor::Impl::to_ir(const clang::Expr* e, const char* what) {
  e = e->IgnoreParens();
  if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(e)) {
    if (cast->getType()->isIntegralOrEnumerationType() &&
        cast->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return cast_to_ir(*cast, what);
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (const Binding* b = lookup(ref->getDecl())) {
      if (b->kind == Binding::Kind::Int)
        return b->value;
      error(e->getBeginLoc(), std::string(what) + " uses '" + ref->getDecl()->getNameAsString() +
                                  "', which is not an integer index");
      return std::nullopt;
    }
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (auto op = ir_operator(bin->getOpcode())) {
      auto lhs = to_ir(bin->getLHS(), what);
      if (!lhs)
        return std::nullopt;
      auto rhs = to_ir(bin->getRHS(), what);
      if (!rhs)
        return std::nullopt;
      auto type = int_type_of(bin, what);
      if (!type)
        return std::nullopt;
      return ir::Expr::binary(*op, std::move(*lhs), std::move(*rhs), std::move(*type));
    }
  }
  if (const auto* un = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (un->getOpcode() == clang::UO_Minus || un->getOpcode() == clang::UO_Plus) {
      auto operand = to_ir(un->getSubExpr(), what);
      if (!operand)
        return std::nullopt;
      if (un->getOpcode() == clang::UO_Plus)
        return operand;
      auto type = int_type_of(un, what);
      if (!type)
        return std::nullopt;
      return ir::Expr::negate(std::move(*operand), std::move(*type));
    }
  }
  // Anything Clang can fold to a constant (constexpr variables and functions, enumerators,
  // sizeof, ...): Clang's own evaluator, with the expression's real type.
  clang::Expr::EvalResult result;
  if (!e->isValueDependent() && e->getType()->isIntegralOrEnumerationType() &&
      e->EvaluateAsInt(result, ctx_)) {
    auto type = int_type_of(e, what);
    if (!type)
      return std::nullopt;
    const llvm::APSInt& value = result.Val.getInt();
    return ir::Expr::constant(value.isUnsigned()
                                  ? static_cast<std::int64_t>(value.getZExtValue())
                                  : value.getSExtValue(),
                              std::move(*type));
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    error(e->getBeginLoc(),
          std::string(what) + " uses '" + ref->getDecl()->getNameAsString() +
              "', which is not a loop variable, index, constant or kernel parameter "
              "(indices must not depend on data)");
    return std::nullopt;
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    error(bin->getOperatorLoc(),
          std::string("operator '") + bin->getOpcodeStr().str() + "' is not supported in " + what +
              "; use + - * / % on loop variables, constants and kernel parameters");
    return std::nullopt;
  }
  error(e->getBeginLoc(),
        std::string("unsupported expression in ") + what + ": '" + text(e->getSourceRange()) +
            "' (use + - * / % on loop variables, constants and kernel parameters)");
  return std::nullopt;
}

bool KernelExtractor::Impl::mentions(const clang::Expr* e, Binding::Kind kind) const {
  bool found = false;
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const Impl* self;
    Binding::Kind kind;
    bool* found;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const Binding* b = self->lookup(ref->getDecl());
      if (b && b->kind == kind)
        *found = true;
      return !*found;
    }
  } finder{{}, this, kind, &found};
  finder.TraverseStmt(const_cast<clang::Expr*>(e));
  return found;
}

bool KernelExtractor::Impl::mentions_local_binding(const clang::Expr* e) const {
  bool found = false;
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const Impl* self;
    bool* found;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const Binding* b = self->lookup(ref->getDecl());
      if (b && !b->kernel_scope)
        *found = true;
      return !*found;
    }
  } finder{{}, this, &found};
  finder.TraverseStmt(const_cast<clang::Expr*>(e));
  return found;
}

// Marks what must change when the call is emitted at kernel scope: integer expressions
// over loop variables / helper indices (replaced by their values), helper parameters and
// helper-local tensors (replaced by their kernel-scope names).
void KernelExtractor::Impl::collect_holes(const clang::Expr* e, unsigned call_begin,
                                          ir::CallSite& call) {
  if (!e)
    return;
  if (e->getType()->isIntegralOrEnumerationType() && !e->isValueDependent() &&
      mentions_local_binding(e)) {
    // The literal replaces the text of the converted expression; the compiler applies the
    // conversion to it again, as it did to the expression.
    e = without_integer_conversion(e);
    auto where = span(e->getSourceRange());
    auto value = to_ir(e, "an intrinsic argument");
    if (!where || !value) {
      if (!where)
        error(e->getBeginLoc(),
              "cannot map this index expression back to its source text (macro?)");
      return;
    }
    call.holes.push_back(
        {where->first - call_begin, where->second - where->first, std::move(*value), ""});
    return;
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const clang::ValueDecl* decl = ref->getDecl();
    // Inside a helper, names resolve in the helper's scope; the generated call runs in the
    // kernel's, so spell namespace-scope names out in full.
    if (!helpers_.empty() && decl->getDeclContext()->isFileContext() &&
        llvm::isa<clang::VarDecl, clang::FunctionDecl, clang::EnumConstantDecl>(decl) &&
        !visible_from_kernel(decl)) {
      auto where = span(clang::SourceRange(ref->getBeginLoc(), ref->getNameInfo().getEndLoc()));
      if (where)
        call.holes.push_back({where->first - call_begin, where->second - where->first, std::nullopt,
                              qualified_name(decl)});
      return;
    }
    const Binding* b = lookup(decl);
    if (b && !b->kernel_scope) {
      std::string replacement;
      if (b->kind == Binding::Kind::Pool)
        replacement = kernel_.pools[b->index].name;
      else if (b->kind == Binding::Kind::Tensor)
        replacement = kernel_.tensors[b->index].name;
      else if (b->kind == Binding::Kind::Text)
        replacement = b->text;
      auto where = span(e->getSourceRange());
      if (where && !replacement.empty() && replacement != ref->getDecl()->getNameAsString())
        call.holes.push_back(
            {where->first - call_begin, where->second - where->first, std::nullopt, replacement});
    }
    return;
  }
  for (const clang::Stmt* child : e->children())
    if (const auto* child_expr = llvm::dyn_cast_or_null<clang::Expr>(child))
      collect_holes(child_expr, call_begin, call);
}

std::optional<ir::Access> KernelExtractor::Impl::to_access(const clang::Expr* arg,
                                                           ir::AccessMode mode,
                                                           const clang::FunctionDecl& callee,
                                                           unsigned index) {
  const clang::Expr* e = strip(arg);
  auto wrong = [&]() -> std::optional<ir::Access> {
    error(arg->getBeginLoc(),
          "argument " + std::to_string(index + 1) + " of intrinsic '" + callee.getNameAsString() +
              "' must be a sub-tensor of a pool tensor or tensor_ref, like t[i], t(i, j) or "
              "t.all()");
    return std::nullopt;
  };
  ir::Access access;
  access.mode = mode;
  access.loc = loc(arg->getBeginLoc());
  const clang::Expr* object = nullptr;
  std::vector<const clang::Expr*> coords;
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    if (op->getOperator() != clang::OO_Subscript && op->getOperator() != clang::OO_Call)
      return wrong();
    object = op->getArg(0);
    for (unsigned i = 1; i < op->getNumArgs(); ++i)
      coords.push_back(op->getArg(i));
  } else if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const auto* method = member->getMethodDecl();
    if (!method || method->getName() != "all" || member->getNumArgs() != 0)
      return wrong();
    object = member->getImplicitObjectArgument();
    access.whole = true;
  } else {
    return wrong();
  }
  const Binding* tensor = nullptr;
  if (const clang::ValueDecl* decl = referenced_decl(object))
    tensor = lookup(decl);
  if (!tensor || tensor->kind != Binding::Kind::Tensor) {
    error(object->getBeginLoc(),
          '\'' + text(object->getSourceRange()) +
              "' is not a tensor declared in this kernel (pool.tensor<...>(offset) or "
              "s2p::tensor_ref)");
    return std::nullopt;
  }
  access.tensor = tensor->index;
  const ir::Tensor& t = kernel_.tensors[tensor->index];
  const std::size_t rank = t.kind == ir::TensorKind::Pool ? t.shape.size() : 1;
  if (!access.whole && coords.size() != rank) {
    error(e->getBeginLoc(), "tensor '" + t.name + "' has " + std::to_string(rank) + " coordinate" +
                                (rank == 1 ? "" : "s") + ", " + std::to_string(coords.size()) +
                                " given");
    return std::nullopt;
  }
  for (const clang::Expr* c : coords) {
    auto value = to_ir(c, "a coordinate");
    if (!value)
      return std::nullopt;
    access.coords.push_back(std::move(*value));
  }
  return access;
}

// ---------------------------------------------------------------------------------------
// Statements

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
  // Constructs the rule table reports (while, if, goto, ...): already diagnosed.
  if (llvm::isa<clang::WhileStmt, clang::DoStmt, clang::IfStmt, clang::SwitchStmt, clang::GotoStmt,
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
    visit_variable(*var, stmt, preamble_added);
  }
}

void KernelExtractor::Impl::visit_variable(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                                           bool& preamble_added) {
  const std::string name = var.getNameAsString();
  const std::string kind = s2p_template_name(var.getType());
  auto add_preamble = [&] {
    if (!preamble_added)
      kernel_.preamble.push_back(text(stmt.getSourceRange()));
    preamble_added = true;
    kernel_names_.insert(name);
  };
  if (var.isStaticLocal() || var.hasExternalStorage()) {
    error(var.getLocation(), "static or extern variables are not supported in a kernel");
    return;
  }
  if (kind == "pool") {
    if (!at_kernel_top()) {
      error(var.getLocation(),
            "declare pool '" + name +
                "' at the top level of the kernel, not in a loop, block or helper");
      return;
    }
    if (var.getType()->isReferenceType()) {
      error(var.getLocation(), "pool '" + name + "' must be a variable, not a reference");
      return;
    }
    const auto args = integer_template_args(var.getType());
    ir::Pool pool{name, element_type_of(var.getType(), ctx_), args.empty() ? 0 : args.back(),
                  loc(var.getLocation()), 0};
    if (const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
            var.getType().getNonReferenceType()->getAsCXXRecordDecl()))
      pool.element_bytes =
          ctx_.getTypeSizeInChars(spec->getTemplateArgs()[0].getAsType()).getQuantity();
    kernel_.pools.push_back(pool);
    bind(&var, {Binding::Kind::Pool, static_cast<int>(kernel_.pools.size()) - 1, {}, "", true});
    add_preamble();
    return;
  }
  if (kind == "pool_tensor") {
    visit_pool_tensor(var, stmt, preamble_added);
    return;
  }
  if (kind == "tensor_ref") {
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
    add_preamble();
    return;
  }
  if (kind == "view" || kind == "in" || kind == "out" || kind == "inout") {
    error(var.getLocation(),
          "sub-tensor views cannot be stored in kernel variables; pass the sub-tensor (like t[i]) "
          "to the intrinsic directly");
    return;
  }
  if (var.getType()->isIntegralOrEnumerationType()) {
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
      add_preamble();
      kernel_.kept_references.emplace_back(name, "its uses are folded into the calls below");
    }
    return;
  }
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
  add_preamble();
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

void KernelExtractor::Impl::visit_for(const clang::ForStmt& loop, ir::ScheduleNode& parent,
                                      int warp) {
  const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop.getInit());
  const auto* var = init && init->isSingleDecl()
                        ? llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl())
                        : nullptr;
  if (!var || !var->getType()->isIntegralOrEnumerationType() || !var->getInit()) {
    error(
        loop.getBeginLoc(),
        "a kernel loop must declare one integer induction variable: for (int i = lo; i < hi; ++i)");
    return;
  }
  const auto var_type = int_type(var->getType());
  if (!var_type) {
    error(var->getLocation(), "the induction variable '" + var->getNameAsString() +
                                  "' must have an integer type of at most 64 bits (not bool)");
    return;
  }
  auto start = to_ir(var->getInit(), "a loop start");
  if (!start)
    return;
  // Condition: var < bound, var <= bound, var > bound, var >= bound, var != bound (or mirrored).
  const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      loop.getCond() ? loop.getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || !cond->isComparisonOp() || cond->getOpcode() == clang::BO_EQ ||
      cond->getOpcode() == clang::BO_Cmp) {
    error(loop.getCond() ? loop.getCond()->getBeginLoc() : loop.getBeginLoc(),
          "the loop condition must compare '" + var->getNameAsString() +
              "' with a bound (<, <=, >, >= or !=)");
    return;
  }
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr* bound_expr = cond->getRHS();
  if (referenced_decl(cond->getLHS()) != var) {
    if (referenced_decl(cond->getRHS()) != var) {
      error(cond->getBeginLoc(), "the loop condition must compare the induction variable '" +
                                     var->getNameAsString() + "' itself with a bound");
      return;
    }
    bound_expr = cond->getLHS();
    op = clang::BinaryOperator::reverseComparisonOp(op);
  }
  auto bound = to_ir(bound_expr, "a loop bound");
  if (!bound)
    return;
  // The comparison runs in the common type of the variable and the bound: a variable that
  // type cannot hold (int compared as unsigned) would compare as another value.
  const clang::Expr* compared = referenced_decl(cond->getLHS()) == var ? cond->getLHS()
                                                                        : cond->getRHS();
  if (auto common = int_type(compared->getType());
      !common || !common->holds_every_value_of(*var_type)) {
    error(cond->getOperatorLoc(),
          "the loop condition compares '" + var->getNameAsString() + "' (" + var_type->spelling +
              ") as '" + compared->getType().getAsString() +
              "', which changes some of its values; give the variable and the bound types "
              "whose comparison keeps every value (e.g. both signed)");
    return;
  }
  // Increment: ++i, i++, --i, i--, i += c, i -= c.
  std::optional<std::int64_t> step;
  const clang::Expr* inc = loop.getInc() ? loop.getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto* un = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc);
      un && referenced_decl(un->getSubExpr()) == var) {
    if (un->isIncrementOp())
      step = 1;
    if (un->isDecrementOp())
      step = -1;
  } else if (const auto* compound = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc);
             compound && referenced_decl(compound->getLHS()) == var) {
    clang::Expr::EvalResult result;
    if ((compound->getOpcode() == clang::BO_AddAssign ||
         compound->getOpcode() == clang::BO_SubAssign) &&
        compound->getRHS()->EvaluateAsInt(result, ctx_)) {
      const std::int64_t c = result.Val.getInt().getExtValue();
      step = compound->getOpcode() == clang::BO_AddAssign ? c : -c;
    }
  }
  if (!step || *step == 0) {
    error(inc ? inc->getBeginLoc() : loop.getBeginLoc(),
          "the loop increment must be ++" + var->getNameAsString() + ", --" +
              var->getNameAsString() + ", " + var->getNameAsString() + " += c or " +
              var->getNameAsString() + " -= c with a nonzero constant c");
    return;
  }
  const bool up = op == clang::BO_LT || op == clang::BO_LE || (op == clang::BO_NE && *step == 1);
  const bool down = op == clang::BO_GT || op == clang::BO_GE || (op == clang::BO_NE && *step == -1);
  if ((up && *step < 0) || (down && *step > 0) || (!up && !down)) {
    error(cond->getOperatorLoc(),
          "the loop condition and increment disagree (the loop would never end or never run "
          "as written); with '!=' the step must be 1 or -1");
    return;
  }
  ir::Expr exclusive = *bound;
  if (op == clang::BO_LE)
    exclusive =
        ir::Expr::binary(ir::Expr::Op::Add, exclusive, ir::Expr::constant(1)).substitute({});
  if (op == clang::BO_GE)
    exclusive =
        ir::Expr::binary(ir::Expr::Op::Sub, exclusive, ir::Expr::constant(1)).substitute({});

  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Loop;
  node.loc = loc(loop.getBeginLoc());
  node.name = loop_variable_name(var->getNameAsString());
  node.var_type = var->getType().getUnqualifiedType().getAsString(ctx_.getPrintingPolicy());
  node.var_int_type = *var_type;
  node.init = *start;
  node.bound = exclusive;
  node.step = *step;
  scopes_.emplace_back();
  bind(var, {Binding::Kind::Int, -1, ir::Expr::variable(node.name, *var_type), "", false});
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

void KernelExtractor::Impl::visit_call(const clang::CallExpr& call, ir::ScheduleNode& parent,
                                       int warp) {
  const clang::FunctionDecl* callee = call.getDirectCallee();
  if (!callee) {
    error(call.getBeginLoc(),
          "calls through pointers or objects are not supported in a kernel; call an intrinsic or a "
          "helper function by name");
    return;
  }
  if (is_intrinsic(callee)) {
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(callee);
        method && !method->isStatic()) {
      error(call.getBeginLoc(),
            "intrinsic '" + callee->getQualifiedNameAsString() +
                "' is a member function: it can read and write its object, which seq2par cannot "
                "see; make it a free (or static) function that takes the object's data as "
                "s2p::in/out/inout arguments");
      return;
    }
    return visit_intrinsic_call(call, *callee, parent, warp);
  }
  if (llvm::isa<clang::CXXMethodDecl>(callee)) {
    error(call.getBeginLoc(),
          "member function '" + callee->getQualifiedNameAsString() +
              "' cannot be called in a kernel; intrinsics and helpers must be free functions");
    return;
  }
  const clang::FunctionDecl* definition = nullptr;
  if (!callee->hasBody(definition) || !definition) {
    error(call.getBeginLoc(),
          "call to '" + callee->getQualifiedNameAsString() +
              "', which is neither an intrinsic (S2P_INTRINSIC) nor a helper whose body seq2par "
              "can see; a kernel must not call functions with unknown side effects");
    return;
  }
  inline_helper(call, *definition, parent, warp);
}

bool KernelExtractor::Impl::is_constant(const clang::Expr& e) const {
  return !e.isValueDependent() && e.isCXX11ConstantExpr(ctx_);
}

// State an intrinsic keeps outside its arguments (a global counter, a static cache) is
// safe while every call that reaches it runs on one warp: a warp runs its calls in program
// order. Calls on two warps run concurrently, and would race on it.
bool KernelExtractor::Impl::intrinsic_state_is_visible(const clang::CallExpr& call,
                                                       const clang::FunctionDecl& callee,
                                                       int warp) {
  auto [cached, inserted] = hidden_state_.try_emplace(&callee);
  if (inserted)
    cached->second = find_hidden_state(callee);
  // The arguments are evaluated on the call's warp too: a global they read is state of it.
  std::vector<HiddenState> reached = cached->second;
  for (const clang::Expr* arg : call.arguments())
    for (auto& state : find_hidden_state(*arg))
      reached.push_back(std::move(state));
  bool ok = true;
  for (const HiddenState& state : reached) {
    if (!state.variable)
      continue; // the tile index: one tile runs a warp-split kernel, so it is a constant
    auto [user, first] = state_users_.try_emplace(state.variable, StateUser{&call, &callee, warp});
    if (first || user->second.warp == warp)
      continue;
    error(call.getBeginLoc(),
          "intrinsic '" + callee.getNameAsString() + "' on warp " + std::to_string(warp) + " " +
              state.what + ", which '" + user->second.callee->getNameAsString() +
              "' on warp " + std::to_string(user->second.warp) +
              " also reaches; warps run concurrently, so they would race on it: run both calls "
              "on one warp, or pass the state as an s2p::inout argument");
    report_note(ctx_, state.where, "here");
    report_note(ctx_, user->second.call->getBeginLoc(), "the call on warp " +
                                                            std::to_string(user->second.warp));
    ok = false;
  }
  return ok;
}

void KernelExtractor::Impl::visit_intrinsic_call(const clang::CallExpr& call,
                                                 const clang::FunctionDecl& callee,
                                                 ir::ScheduleNode& parent, int warp) {
  auto where = span(call.getSourceRange());
  if (!where) {
    error(call.getBeginLoc(), "cannot map this call back to its source text (macro?)");
    return;
  }
  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Call;
  node.loc = loc(call.getBeginLoc());
  ir::CallSite& site = node.call;
  site.callee = callee.getNameAsString();
  site.warp = warp;
  site.loc = node.loc;
  site.text = text(call.getSourceRange());
  if (auto cost = annotation_argument(&callee, "s2p.cost"))
    site.cost = *cost;
  if (callee.isVariadic()) {
    error(call.getBeginLoc(), "intrinsic '" + site.callee +
                                  "' is variadic; intrinsics need one parameter per argument");
    return;
  }
  bool ok = true;
  for (unsigned i = 0; i < call.getNumArgs() && i < callee.getNumParams(); ++i) {
    const clang::Expr* arg = call.getArg(i);
    const std::string wrapper = s2p_template_name(callee.getParamDecl(i)->getType());
    std::optional<ir::AccessMode> mode;
    if (wrapper == "in")
      mode = ir::AccessMode::Read;
    else if (wrapper == "out")
      mode = ir::AccessMode::Write;
    else if (wrapper == "inout" || wrapper == "view")
      mode = ir::AccessMode::ReadWrite;
    if (mode) {
      auto access = to_access(arg, *mode, callee, i);
      if (!access)
        ok = false;
      else
        site.accesses.push_back(std::move(*access));
      continue;
    }
    if (mentions(arg, Binding::Kind::Tensor) || mentions(arg, Binding::Kind::Pool)) {
      error(arg->getBeginLoc(),
            "tensors and pools can only be passed to parameter " + std::to_string(i + 1) + " of '" +
                site.callee +
                "' as s2p::in/out/inout sub-tensors (no pointer arithmetic on pools)");
      ok = false;
    } else if (auto problem = plain_value_problem(callee.getParamDecl(i)->getType(), ctx_)) {
      error(arg->getBeginLoc(),
            "parameter " + std::to_string(i + 1) + " ('" +
                callee.getParamDecl(i)->getNameAsString() + "') of intrinsic '" + site.callee +
                "' is " + *problem +
                "; an intrinsic reads and writes only its s2p::in/out/inout/view arguments and "
                "takes everything else as a plain value: put the data in a tensor_ref or pool "
                "tensor and pass it as s2p::inout<T>, or pass a value");
      ok = false;
    } else if (arg->HasSideEffects(ctx_) && !is_constant(*arg)) {
      error(arg->getBeginLoc(),
            "argument " + std::to_string(i + 1) + " of '" + site.callee + "' has side effects");
      ok = false;
    }
  }
  if (!ok || (warp >= 0 && !intrinsic_state_is_visible(call, callee, warp)))
    return;
  collect_holes(call.getCallee(), where->first, site);
  for (unsigned i = 0; i < call.getNumArgs(); ++i) {
    collect_holes(call.getArg(i), where->first, site);
    if (auto arg = span(call.getArg(i)->getSourceRange()))
      site.arguments.emplace_back(arg->first - where->first, arg->second - arg->first);
  }
  clang::PrintingPolicy policy(ctx_.getLangOpts());
  for (const clang::ParmVarDecl* param : callee.parameters()) {
    std::string declaration;
    llvm::raw_string_ostream out(declaration);
    param->getType().print(out, policy, param->getName());
    site.parameters.push_back(out.str());
  }
  if (warp < 0) {
    error(call.getBeginLoc(), "intrinsic call '" + site.callee + "' has no warp number");
    report_note(ctx_, call.getBeginLoc(),
                "add '#pragma s2p warp(N)' before this statement or an enclosing loop");
    return;
  }
  parent.children.push_back(std::move(node));
}

void KernelExtractor::Impl::inline_helper(const clang::CallExpr& call,
                                          const clang::FunctionDecl& helper,
                                          ir::ScheduleNode& parent, int warp) {
  const std::string name = helper.getNameAsString();
  for (const clang::FunctionDecl* active : helpers_) {
    if (active == &helper) {
      error(call.getBeginLoc(), "recursive call to '" + name + "' cannot be inlined into a kernel");
      for (auto it = helpers_.rbegin(); it != helpers_.rend(); ++it)
        report_note(ctx_, (*it)->getLocation(),
                    '\'' + (*it)->getNameAsString() + "' is being inlined here");
      return;
    }
  }
  if (helper.isVariadic()) {
    error(call.getBeginLoc(), "variadic helper '" + name + "' cannot be inlined into a kernel");
    return;
  }
  if (!helper.getReturnType()->isVoidType()) {
    error(call.getBeginLoc(),
          "helper '" + name + "' returns a value; a helper inlined into a kernel must return void");
    return;
  }
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(helper.getBody());
  if (!body) {
    error(call.getBeginLoc(), "helper '" + name + "' has no body to inline");
    return;
  }
  if (checked_helpers_.insert(&helper).second) {
    check_body_rules(*body);
    if (!helper.isExternallyVisible() && !helper.isTemplateInstantiation()) {
      const std::string name =
          visible_from_kernel(&helper) ? helper.getNameAsString() : qualified_name(&helper);
      clang::PrintingPolicy policy(ctx_.getLangOpts());
      policy.FullyQualifiedName = true;
      kernel_.kept_references.emplace_back(
          "static_cast<" + ctx_.getPointerType(helper.getType()).getAsString(policy) + ">(&" +
              name + ")",
          "inlined below");
    }
  }

  // Bind parameters to arguments, in the caller's scope.
  std::unordered_map<const clang::ValueDecl*, Binding> params;
  bool ok = true;
  for (unsigned i = 0; i < helper.getNumParams() && i < call.getNumArgs(); ++i) {
    const clang::ParmVarDecl* param = helper.getParamDecl(i);
    const clang::Expr* arg = call.getArg(i);
    const std::string kind = s2p_template_name(param->getType());
    const clang::ValueDecl* arg_decl = referenced_decl(arg);
    const Binding* arg_binding = arg_decl ? lookup(arg_decl) : nullptr;
    if (kind == "pool" || kind == "pool_tensor" || kind == "tensor_ref") {
      const Binding::Kind wanted = kind == "pool" ? Binding::Kind::Pool : Binding::Kind::Tensor;
      if (!arg_binding || arg_binding->kind != wanted) {
        error(arg->getBeginLoc(), "pass a " + kind + " declared in this kernel to parameter '" +
                                      param->getNameAsString() + "' of '" + name + "'");
        ok = false;
        continue;
      }
      Binding b = *arg_binding;
      b.kernel_scope = false; // renamed to the argument inside the helper
      params[param] = b;
    } else if (param->getType()->isIntegralOrEnumerationType() ||
               (param->getType()->isReferenceType() &&
                param->getType().getNonReferenceType()->isIntegralOrEnumerationType())) {
      auto value =
          to_ir(arg, ("argument '" + param->getNameAsString() + "' of '" + name + "'").c_str());
      if (!value) {
        ok = false;
        continue;
      }
      params[param] = {Binding::Kind::Int, -1, std::move(*value), "", false};
    } else {
      if (arg->HasSideEffects(ctx_)) {
        error(arg->getBeginLoc(),
              "argument '" + param->getNameAsString() + "' of '" + name + "' has side effects");
        ok = false;
        continue;
      }
      if (arg_binding && arg_binding->kind == Binding::Kind::Text) {
        params[param] = *arg_binding;
        continue;
      }
      if (mentions_local_binding(arg) || mentions(arg, Binding::Kind::Tensor) ||
          mentions(arg, Binding::Kind::Pool)) {
        error(arg->getBeginLoc(),
              "argument '" + param->getNameAsString() + "' of '" + name +
                  "' must be a kernel-scope value (pass integer indices as integer parameters)");
        ok = false;
        continue;
      }
      params[param] = {Binding::Kind::Text, -1, {}, "(" + text(arg->getSourceRange()) + ")", false};
    }
  }
  if (!ok)
    return;

  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Function;
  node.name = name;
  node.loc = loc(call.getBeginLoc());
  helpers_.push_back(&helper);
  scopes_.push_back(std::move(params));
  visit_body(*body, node, warp, true);
  scopes_.pop_back();
  helpers_.pop_back();
  parent.children.push_back(std::move(node));
}

std::optional<ir::Kernel> KernelExtractor::Impl::run(const clang::FunctionDecl& kernel) {
  kernel_decl_ = &kernel;
  kernel_.name = kernel.getNameAsString();
  kernel_.loc = loc(kernel.getLocation());
  kernel_.root.kind = ir::ScheduleNode::Kind::Kernel;
  kernel_.root.name = kernel_.name;
  kernel_.root.loc = kernel_.loc;
  if (llvm::isa<clang::CXXMethodDecl>(kernel)) {
    error(kernel.getLocation(),
          "kernel '" + kernel_.name + "' must be a free function, not a member function");
    return std::nullopt;
  }
  if (kernel.isTemplated()) {
    error(kernel.getLocation(),
          "kernel templates are not supported; declare the kernel for concrete types");
    return std::nullopt;
  }
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel.getBody());
  if (!body)
    return std::nullopt;
  if (has_annotation(&kernel, "s2p.tiles"))
    return run_multi_tile(kernel, *body);
  if (has_annotation(&kernel, "s2p.move_memory")) {
    error(kernel.getLocation(), "S2P_MOVE_MEMORY applies to multi-tile kernels (S2P_TILES(n)), "
                                "whose foralls move blocks between tiles");
    return std::nullopt;
  }
  check_body_rules(*body);

  scopes_.emplace_back();
  for (const clang::ParmVarDecl* param : kernel.parameters()) {
    const std::string name = param->getNameAsString();
    kernel_names_.insert(name);
    const std::string kind = s2p_template_name(param->getType());
    if (kind == "tensor_ref") {
      ir::Tensor tensor;
      tensor.name = name;
      tensor.kind = ir::TensorKind::Ref;
      tensor.element_type = element_type_of(param->getType(), ctx_);
      tensor.loc = loc(param->getLocation());
      kernel_.tensors.push_back(tensor);
      bind(param,
           {Binding::Kind::Tensor, static_cast<int>(kernel_.tensors.size()) - 1, {}, "", true});
    } else if (kind == "pool" || kind == "pool_tensor") {
      error(param->getLocation(),
            "pools and pool tensors must be declared inside the kernel, not passed in");
    } else if (param->getType()->isIntegralOrEnumerationType()) {
      kernel_.symbols.push_back(name);
      auto type = int_type(param->getType());
      if (!type) {
        error(param->getLocation(), "integer parameter '" + name +
                                        "' must have an integer type of at most 64 bits");
        continue;
      }
      bind(param, {Binding::Kind::Int, -1, ir::Expr::variable(name, *type), "", true});
    } else {
      bind(param, {Binding::Kind::Opaque, -1, {}, "", true});
    }
  }
  visit_body(*body, kernel_.root, -1, true);
  scopes_.pop_back();
  if (failed_)
    return std::nullopt;
  return std::move(kernel_);
}

KernelExtractor::KernelExtractor(clang::ASTContext& ctx, WarpPragmaTable& pragmas,
                                 std::string display_file)
    : ctx_(ctx), pragmas_(pragmas), display_file_(std::move(display_file)), calls_(ctx) {}

std::optional<ir::Kernel> KernelExtractor::extract(const clang::FunctionDecl& kernel) {
  Impl impl(ctx_, pragmas_, calls_, display_file_);
  return impl.run(kernel);
}

} // namespace s2p::frontend
