// The front end's integer expressions: Clang expressions to typed ir::Expr (exact C++
// integer semantics), what an expression mentions, the text holes of a call, and intrinsic
// arguments as sub-tensor accesses.
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

// Internal-linkage variables at namespace scope (`constexpr int kBlocks = 4;` in an anonymous
// namespace) that `e` mentions.
std::vector<const clang::VarDecl*> file_constants_in(const clang::Expr& e) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    std::vector<const clang::VarDecl*> found;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var && var->isFileVarDecl() && !var->isExternallyVisible())
        found.push_back(var);
      return true;
    }
  } finder;
  finder.TraverseStmt(const_cast<clang::Expr*>(&e));
  return finder.found;
}

} // namespace


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
      if (b->kind == Binding::Kind::Refused)
        return std::nullopt; // its declaration's error says why
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
    // A constant of this file folded into values may be used nowhere else in the generated
    // file: keep a reference so that -Wunused-const-variable stays quiet.
    for (const clang::VarDecl* var : file_constants_in(*e)) {
      const std::string name = var->getNameAsString();
      const bool kept = std::any_of(kernel_.kept_references.begin(), kernel_.kept_references.end(),
                                    [&](const auto& kept) { return kept.first == name; });
      if (!kept && visible_from_kernel(var))
        kernel_.kept_references.emplace_back(name, "its uses are folded into the calls below");
    }
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
        {where->first - call_begin, where->second - where->first, std::move(value), ""});
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

// The grid of a section of a tile block (Ct(b).section(g)) is evaluated where the section is
// taken, on a warp or before the warps start: like any plain argument it may use loop
// variables, constants and kernel parameters, never data (a pool or tile-block element
// another warp may be writing), and it has no side effects.
bool KernelExtractor::Impl::section_grid_is_plain(const clang::Expr* e, const clang::NamedDecl& user) {
  const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e);
  if (!member || member->getNumArgs() != 1)
    return true;
  const clang::Expr* grid = member->getArg(0);
  if (mentions(grid, Binding::Kind::Tensor) || mentions(grid, Binding::Kind::Pool) ||
      grid->HasSideEffects(ctx_, /*IncludePossibleEffects=*/false)) {
    error(grid->getBeginLoc(),
          "the grid of this section of a tile block (used by '" + user.getNameAsString() +
              "') must be computed from loop variables, constants and kernel parameters, not "
              "from data and without side effects");
    return false;
  }
  return true;
}

std::optional<ir::Access> KernelExtractor::Impl::to_access(const clang::Expr* arg,
                                                           ir::AccessMode mode,
                                                           const clang::FunctionDecl& callee,
                                                           unsigned index) {
  const clang::Expr* e = strip(arg);
  if (refused(referenced_decl(e)))
    return std::nullopt; // its declaration's error says why
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
  access.argument = static_cast<int>(index);
  if (const int block = tile_block_tensor(e); block >= 0) {
    // A task's tile block (Ct(b), At({b[0], k}), or a variable holding one): one unit.
    const ir::Tensor& view = kernel_.tensors[static_cast<std::size_t>(block)];
    if (ir::writes(mode) && view.name != task_output_) {
      error(arg->getBeginLoc(),
            "argument " + std::to_string(index + 1) + " of intrinsic '" + callee.getNameAsString() +
                "' writes a block of '" + view.name +
                "', which is read-only on a tile; only the forall's output block '" +
                task_output_ + "(b)' may be written");
      return std::nullopt;
    }
    if (!section_grid_is_plain(e, callee))
      return std::nullopt;
    access.tensor = block;
    access.whole = true;
    return access;
  }
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
  if (tensor && tensor->kind == Binding::Kind::Refused)
    return std::nullopt; // its declaration's error says why
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

} // namespace s2p::frontend
