// S2P_TILES kernels (seeds 002, 004): ring collectives over per-tile rows and foralls over
// agile fields, in the full global view (X[i]) or the local-global view (Xt(b) blocks).
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <functional>
#include <map>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

namespace {

// The element type T of an s2p::field<N, T> (the first type argument), as the schedule spells it.
std::string schedule_element_type(clang::QualType type, const clang::ASTContext& ctx) {
  type = type.getNonReferenceType().getCanonicalType();
  const auto* spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  if (!spec)
    return "";
  for (const auto& arg : spec->getTemplateArgs().asArray()) {
    if (arg.getKind() != clang::TemplateArgument::Type)
      continue;
    const clang::QualType t = arg.getAsType().getCanonicalType();
    if (t->isFloatingType())
      return ctx.getTypeSize(t) == 32 ? "f32" : ctx.getTypeSize(t) == 64 ? "f64" : "";
    if (t->isIntegerType() && !t->isBooleanType()) {
      const auto bits = ctx.getTypeSize(t);
      return (t->isSignedIntegerType() ? 'i' : 'u') + std::to_string(bits); // chars: see above
    }
  }
  return "";
}

} // namespace

std::optional<ir::TileStep> KernelExtractor::Impl::multi_tile_call(const clang::CallExpr& call) {
  const clang::FunctionDecl* callee = call.getDirectCallee();
  const std::string name = callee ? callee->getQualifiedNameAsString() : "";
  ir::TileStep step;
  step.loc = loc(call.getBeginLoc());
  step.text = text(call.getSourceRange());
  if (name == "s2p::forall")
    return forall_step(call);
  if (name == "s2p::all_reduce" || name == "s2p::reduce_scatter" || name == "s2p::all_gather") {
    step.kind = name == "s2p::all_reduce"       ? ir::TileStep::Kind::AllReduce
                : name == "s2p::reduce_scatter" ? ir::TileStep::Kind::ReduceScatter
                                                : ir::TileStep::Kind::AllGather;
    step.field = text(call.getArg(0)->getSourceRange());
    step.op = call.getNumArgs() > 1 ? text(call.getArg(1)->getSourceRange()) : "s2p::sum{}";
    // The library's combine objects, as the schedule spells them (their name()).
    static const std::map<std::string, std::string> combines{
        {"sum", "sum"}, {"product", "prod"}, {"maximum", "max"}, {"minimum", "min"}};
    const clang::CXXRecordDecl* combine =
        call.getNumArgs() > 1 ? call.getArg(1)->getType()->getAsCXXRecordDecl() : nullptr;
    if (combine && qualified_name(combine).rfind("::s2p::", 0) == 0)
      if (const auto known = combines.find(combine->getNameAsString()); known != combines.end())
        step.combine = known->second;
    if (step.kind != ir::TileStep::Kind::AllGather && step.combine.empty()) {
      error(call.getArg(1)->getBeginLoc(),
            "the combine of a collective must be one of the library's: s2p::sum{}, "
            "s2p::product{}, s2p::maximum{} or s2p::minimum{} (a ring collective combines "
            "in the fabric's order with an operation every backend knows)");
      return std::nullopt;
    }
    if (const clang::ValueDecl* rows = referenced_decl(call.getArg(0));
        rows && llvm::isa<clang::ParmVarDecl>(rows))
      step.rows_parameter = rows->getNameAsString();
    step.element_type = schedule_element_type(call.getArg(0)->getType(), ctx_);
    if (step.element_type.empty()) {
      error(call.getArg(0)->getBeginLoc(),
            "the rows of a collective must be an s2p::field<2, T> of an arithmetic type");
      return std::nullopt;
    }
    return step;
  }
  error(call.getBeginLoc(), "a multi-tile kernel may call s2p::forall, s2p::all_reduce, "
                            "s2p::reduce_scatter and s2p::all_gather; '" +
                                (name.empty() ? text(call.getSourceRange()) : name) +
                                "' is not supported here");
  return std::nullopt;
}

// `i`, or an s2p::index built from i[k] + c per axis ({i[1], i[0]}, {i[0] + 1, i[1]}).
std::optional<ir::TileStep::IndexMap>
KernelExtractor::Impl::index_map(const clang::Expr* index, const clang::ParmVarDecl* i, int rank) {
  ir::TileStep::IndexMap map;
  const clang::Expr* e = strip(index);
  if (referenced_decl(e) == i) {
    for (int d = 0; d < rank; ++d)
      map.axis.push_back(d), map.offset.push_back(0);
    return map;
  }
  std::vector<const clang::Expr*> coords;
  if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(e))
    e = strip(std_list->getSubExpr());
  if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(e))
    coords.assign(list->inits().begin(), list->inits().end());
  else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
    for (const clang::Expr* arg : construct->arguments()) {
      const clang::Expr* inner = strip(arg);
      if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(inner))
        coords.assign(list->inits().begin(), list->inits().end());
      else if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(inner)) {
        if (const auto* l = llvm::dyn_cast<clang::InitListExpr>(strip(std_list->getSubExpr())))
          coords.assign(l->inits().begin(), l->inits().end());
      }
    }
  }
  if (static_cast<int>(coords.size()) != rank)
    return std::nullopt;
  for (const clang::Expr* c : coords) {
    // i[k] (+|-) constant
    std::int64_t offset = 0;
    const clang::Expr* base = strip(c);
    if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(base);
        bin && (bin->getOpcode() == clang::BO_Add || bin->getOpcode() == clang::BO_Sub)) {
      clang::Expr::EvalResult value;
      if (!bin->getRHS()->EvaluateAsInt(value, ctx_))
        return std::nullopt;
      offset = value.Val.getInt().getExtValue() * (bin->getOpcode() == clang::BO_Sub ? -1 : 1);
      base = strip(bin->getLHS());
    }
    const auto* subscript = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base);
    clang::Expr::EvalResult axis;
    if (!subscript || subscript->getOperator() != clang::OO_Subscript ||
        referenced_decl(subscript->getArg(0)) != i ||
        !subscript->getArg(1)->EvaluateAsInt(axis, ctx_))
      return std::nullopt;
    map.axis.push_back(static_cast<int>(axis.Val.getInt().getExtValue()));
    map.offset.push_back(offset);
  }
  return map;
}

std::optional<ir::TileStep> KernelExtractor::Impl::forall_step(const clang::CallExpr& call) {
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.loc = loc(call.getBeginLoc());
  step.text = text(call.getSourceRange());
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
        tile_blocks_.count(domain)) {
      if (!check_forall_body(*lambda, true))
        return std::nullopt;
      return tile_forall_step(call, *lambda, *domain);
    }
  }
  if (!check_forall_body(*lambda, false))
    return std::nullopt;
  const clang::ParmVarDecl* i = op->getParamDecl(0);
  step.rank = static_cast<int>(integer_template_args(i->getType()).front());
  // Every subscript of an agile field inside the body: what it reads and writes.
  struct Access {
    const clang::ValueDecl* field;
    ir::TileStep::IndexMap map;
    bool written;
    clang::SourceLocation where;
  };
  std::vector<Access> accesses;
  std::set<const clang::Expr*> written_subscripts;
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    Impl* self;
    const clang::ParmVarDecl* i;
    int rank;
    std::vector<Access>* accesses;
    std::set<const clang::Expr*>* written;
    bool ok = true;
    bool VisitBinaryOperator(clang::BinaryOperator* b) {
      if (b->isAssignmentOp())
        written->insert(strip(b->getLHS()));
      return true;
    }
    bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
      if (call->isAssignmentOp())
        written->insert(strip(call->getArg(0)));
      if (call->getOperator() != clang::OO_Subscript)
        return true;
      const clang::ValueDecl* field = referenced_decl(call->getArg(0));
      if (!field || !self->agile_fields_.count(field))
        return true;
      auto map = self->index_map(call->getArg(1), i, rank);
      if (!map) {
        self->error(call->getArg(1)->getBeginLoc(),
                    "the index of agile field '" + field->getNameAsString() +
                        "' must be the forall's index, or one built from it with each "
                        "coordinate i[k] plus a constant (like {i[1], i[0]})");
        ok = false;
        return true;
      }
      accesses->push_back({field, *map, false, call->getBeginLoc()});
      accesses->back().written = written->count(call) > 0;
      return true;
    }
  } finder{{}, this, i, step.rank, &accesses, &written_subscripts};
  // Assignments are visited before their operands, so `written` is known at each subscript.
  finder.TraverseStmt(lambda->getBody());
  if (!finder.ok)
    return std::nullopt;
  const clang::ValueDecl* output = nullptr;
  for (const auto& a : accesses) {
    if (!a.written)
      continue;
    if (output && output != a.field) {
      error(a.where, "a forall may write one agile field; it already writes '" +
                         output->getNameAsString() + "'");
      return std::nullopt;
    }
    output = a.field;
  }
  if (!output) {
    error(call.getBeginLoc(), "this forall writes no agile field (write it as X[i] = ...)");
    return std::nullopt;
  }
  ir::TileStep::IndexMap identity;
  for (int d = 0; d < step.rank; ++d)
    identity.axis.push_back(d), identity.offset.push_back(0);
  for (const auto& a : accesses) {
    if (a.field == output && !(a.map == identity)) {
      error(a.where, "the forall " + std::string(a.written ? "writes" : "reads") + " '" +
                         output->getNameAsString() +
                         "', the field it writes, at another index than its own; each element must "
                         "be computed "
                         "where it is owned, from values of the other fields");
      return std::nullopt;
    }
    if (a.field == output)
      continue;
    if (!same_source(*a.field, *output, a.where))
      return std::nullopt;
    step.add_read(a.field->getNameAsString(), a.map);
  }
  step.output = output->getNameAsString();
  step.set_body(text(i->getSourceRange()), text(lambda->getBody()->getSourceRange()));
  return step;
}

namespace {

// Is `type` an s2p::field whose elements can be written (field<N, T>, T not const)?
bool writable_field(clang::QualType type) {
  type = type.getNonReferenceType().getCanonicalType();
  if (s2p_template_name(type) != "field")
    return false;
  const auto* spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  for (const auto& arg : spec->getTemplateArgs().asArray())
    if (arg.getKind() == clang::TemplateArgument::Type)
      return !arg.getAsType().isConstQualified();
  return false;
}

// The variable or tile access an element expression is rooted in: `a` in a[j], c(j)[k].
const clang::Expr* access_root(const clang::Expr* e) {
  e = strip(e);
  while (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    if (op->getOperator() != clang::OO_Subscript && op->getOperator() != clang::OO_Call)
      break;
    const clang::Expr* base = strip(op->getArg(0));
    if (llvm::isa<clang::DeclRefExpr>(base))
      return base;
    e = base;
  }
  return e;
}

} // namespace

namespace {

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

private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// The forall body rules: every tile runs the body at once, so the body may write only its
// output (element or block) and its own locals, and may compute nothing that depends on
// which tile runs it. Anything else it reaches is refused, at the construct.
class ForallBodyRules : public WriteVisitor<ForallBodyRules> {
public:
  using Fail = std::function<void(clang::SourceLocation, const std::string&)>;
  ForallBodyRules(const clang::LambdaExpr& lambda, std::function<bool(const clang::ValueDecl*)> distributed,
                  bool local_global, Fail fail)
      : op_(*lambda.getCallOperator()), distributed_(std::move(distributed)),
        local_global_(local_global), fail_(std::move(fail)) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (!captured(var) || distributed_(var) || s2p_template_name(var->getType()) != "field")
      return true;
    if (local_global_ && llvm::isa<clang::ParmVarDecl>(var))
      return true; // the tile-view rules name it already
    fail_(ref->getBeginLoc(),
          '\'' + var->getNameAsString() +
              "' is the plain field, which bypasses the distribution: inside a forall, read and "
              "write data only through agile fields (Xd[i]) or tile views (Xt(b))");
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->isAssignmentOp() || call->getOperator() == clang::OO_PlusPlus ||
        call->getOperator() == clang::OO_MinusMinus)
      check_write(call->getArg(0), call->getOperatorLoc());
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const auto* method = call->getMethodDecl();
    if (method && !method->isConst() && !method->isStatic())
      check_write(call->getImplicitObjectArgument(), call->getExprLoc());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (callable_object_call(*call))
      return true;
    if (!callee || llvm::isa<clang::CXXOperatorCallExpr>(call))
      return true;
    for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
      const clang::QualType type = callee->getParamDecl(i)->getType();
      const bool mutable_ref =
          type->isReferenceType() && !type.getNonReferenceType().isConstQualified();
      const bool mutable_pointer =
          type->isPointerType() && !type->getPointeeType().isConstQualified();
      if (mutable_ref || mutable_pointer)
        check_write(call->getArg(i), call->getArg(i)->getBeginLoc());
    }
    return true;
  }

  // A local pointer or reference (or view) made from a captured variable writes what the
  // capture reaches, out of the write check's sight: refused where it is made.
  bool VisitVarDecl(clang::VarDecl* var) {
    const clang::QualType type = var->getType();
    const bool aliases = type->isPointerType() || type->isReferenceType() ||
                         s2p_template_name(type.getNonReferenceType()) == "field";
    if (!aliases || !var->hasInit() || var->getType().getNonReferenceType().isConstQualified())
      return true;
    if (const auto* from = captured_in(var->getInit()))
      fail_(var->getLocation(),
            '\'' + var->getNameAsString() + "' refers to '" + from->getNameAsString() +
                "', which the forall body captured from the kernel; every tile runs the body at "
                "once, so a forall may write only its output and its own local variables");
    return true;
  }

  void check_write(const clang::Expr* target, clang::SourceLocation where) {
    const auto* root = llvm::dyn_cast<clang::DeclRefExpr>(access_root(target));
    const auto* var = root ? llvm::dyn_cast<clang::VarDecl>(root->getDecl()) : nullptr;
    if (!captured(var) || distributed_(var))
      return;
    fail_(where, "the forall body writes '" + var->getNameAsString() +
                     "', which it captured from the kernel; every tile runs the body at once, "
                     "so a forall may write only its output and its own local variables "
                     "(collect per-element results in an output field)");
  }

private:
  // A call whose body seq2par cannot follow from here: through a function pointer, or of a
  // callable object (a lambda or functor the kernel made, which may write what it captured).
  bool callable_object_call(const clang::CallExpr& call) {
    const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(&call);
    if (op && op->getOperator() == clang::OO_Call) {
      // Views (Xt(b), a local block c(j)) are called too; the plain field has its own rule.
      const auto* root = llvm::dyn_cast<clang::DeclRefExpr>(access_root(op->getArg(0)));
      const auto* var = root ? llvm::dyn_cast<clang::VarDecl>(root->getDecl()) : nullptr;
      if (!captured(var) || distributed_(var) || s2p_template_name(var->getType()) == "field")
        return false;
    } else if (call.getDirectCallee()) {
      return false;
    }
    fail_(call.getBeginLoc(), "the forall body calls a function pointer or a callable object, "
                              "whose effects seq2par cannot see; call a function by name");
    return true;
  }
  // The first captured, non-distributed variable `e` mentions.
  const clang::VarDecl* captured_in(const clang::Expr* e) const {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts())) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (captured(var) && !distributed_(var))
        return var;
    }
    for (const clang::Stmt* child : e->children())
      if (const auto* expr = llvm::dyn_cast_or_null<clang::Expr>(child))
        if (const auto* var = captured_in(expr))
          return var;
    return nullptr;
  }
  // Declared outside the body (not the index parameter, not a local of the body).
  bool captured(const clang::VarDecl* var) const {
    if (!var || var->hasGlobalStorage())
      return false; // globals are the hidden-state check's
    for (const clang::DeclContext* ctx = var->getDeclContext(); ctx; ctx = ctx->getParent())
      if (ctx == &op_)
        return false;
    return true;
  }
  const clang::CXXMethodDecl& op_;
  std::function<bool(const clang::ValueDecl*)> distributed_;
  bool local_global_;
  Fail fail_;
};

} // namespace

// Side effects, plain-field access and tile-dependent compute in a forall body.
bool KernelExtractor::Impl::check_forall_body(const clang::LambdaExpr& lambda, bool local_global) {
  bool ok = true;
  auto fail = [&](clang::SourceLocation where, const std::string& message) {
    error(where, message);
    ok = false;
  };
  ForallBodyRules rules(
      lambda,
      [this](const clang::ValueDecl* d) { return agile_fields_.count(d) || tile_blocks_.count(d); },
      local_global, fail);
  rules.TraverseStmt(lambda.getBody());
  for (const HiddenState& state : find_hidden_state(*lambda.getBody())) {
    fail(state.where, "the forall body " + state.what +
                          (state.variable ? "; every tile runs the body at once, so they would "
                                            "race on it (mark a function whose state changes no "
                                            "result S2P_HARMLESS_STATE)"
                                          : "; a forall must compute each element the same way "
                                            "wherever it runs"));
  }
  return ok;
}

// s2p::forall(Ct.blocks(), [&](s2p::index<N> b) { auto c = Ct(b); auto a = At(b); ... }):
// the tasks are the output's algorithmic blocks; every tile access Xt(m(b)) is planned
// (owner-copy of the memory blocks holding it), element accesses inside are not.
std::optional<ir::TileStep> KernelExtractor::Impl::tile_forall_step(
    const clang::CallExpr& call, const clang::LambdaExpr& lambda, const clang::ValueDecl& output) {
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.local_global = true;
  step.loc = loc(call.getBeginLoc());
  step.text = text(call.getSourceRange());
  const clang::ParmVarDecl* b = lambda.getCallOperator()->getParamDecl(0);
  step.rank = static_cast<int>(integer_template_args(b->getType()).front());
  if (tile_blocks_.at(&output) != step.rank) {
    error(b->getBeginLoc(), "the block index must have the rank of '" + output.getNameAsString() +
                                "' (" + std::to_string(tile_blocks_.at(&output)) + ")");
    return std::nullopt;
  }
  step.output = output.getNameAsString();

  struct Access {
    const clang::ValueDecl* blocks;
    ir::TileStep::IndexMap map;
    const clang::Expr* call;
  };
  struct Finder : WriteVisitor<Finder> {
    Impl* self;
    const clang::ParmVarDecl* b;
    int rank;
    const clang::ValueDecl* output;
    std::vector<Access> accesses;
    std::set<const clang::DeclRefExpr*> allowed;   // tile views used as Xt(m) or Xt.blocks()
    std::set<const clang::ValueDecl*> input_views; // variables holding an input block
    bool ok = true;

    void fail(clang::SourceLocation where, const std::string& message) {
      self->error(where, message);
      ok = false;
    }
    const Access* tile_access(const clang::Expr* e) const {
      e = strip(e);
      for (const auto& a : accesses)
        if (a.call == e)
          return &a;
      return nullptr;
    }
    bool input_block(const clang::Expr* e) const {
      const clang::Expr* root = access_root(e);
      if (const Access* a = tile_access(root))
        return a->blocks != output;
      return input_views.count(referenced_decl(root)) > 0;
    }
    bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* op) {
      if (op->getOperator() != clang::OO_Call)
        return true;
      const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(op->getArg(0)));
      if (!ref || !self->tile_blocks_.count(ref->getDecl()))
        return true;
      allowed.insert(ref);
      auto map = op->getNumArgs() == 2 ? self->index_map(op->getArg(1), b, rank) : std::nullopt;
      if (!map) {
        fail(op->getBeginLoc(), "a tile access '" + ref->getDecl()->getNameAsString() +
                                    "(...)' takes the block index, or one built from it with each "
                                    "coordinate b[k] plus a constant (like {b[1], b[0]})");
        return true;
      }
      accesses.push_back({ref->getDecl(), *map, op});
      return true;
    }
    bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* member) {
      if (const auto* ref =
              llvm::dyn_cast<clang::DeclRefExpr>(strip(member->getImplicitObjectArgument()));
          ref && self->tile_blocks_.count(ref->getDecl()) && member->getMethodDecl() &&
          member->getMethodDecl()->getName() == "blocks")
        allowed.insert(ref);
      return true;
    }
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const clang::ValueDecl* decl = ref->getDecl();
      if (self->agile_fields_.count(decl))
        fail(ref->getBeginLoc(),
             '\'' + decl->getNameAsString() +
                 "' is an agile field: inside a forall over tile blocks, read data through "
                 "s2p::tiles(...) views (the global view X[i] needs its own forall)");
      else if (llvm::isa<clang::ParmVarDecl>(decl) &&
               decl->getDeclContext() != b->getDeclContext() &&
               s2p_template_name(decl->getType()) == "field")
        fail(ref->getBeginLoc(), '\'' + decl->getNameAsString() +
                                     "' is the whole field, which no tile holds: read it through "
                                     "an s2p::tiles(...) view of an agile field");
      else if (self->tile_blocks_.count(decl) && !allowed.count(ref))
        fail(ref->getBeginLoc(), "a tile view may only be called with a block index ('" +
                                     decl->getNameAsString() + "(b)') or asked for '" +
                                     decl->getNameAsString() + ".blocks()'");
      return true;
    }
    bool VisitDeclStmt(clang::DeclStmt* decl) {
      // Declarations are visited before their initializers: find the tile accesses here.
      for (const clang::Decl* d : decl->decls()) {
        const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
        if (!var || !var->hasInit())
          continue;
        TraverseStmt(const_cast<clang::Expr*>(var->getInit()));
        const Access* a = tile_access(var->getInit());
        if (!a || a->blocks == output)
          continue;
        input_views.insert(var);
        const bool deduced = var->getTypeSourceInfo()->getType()->getContainedAutoType() != nullptr;
        if (!deduced && writable_field(var->getType()))
          fail(var->getLocation(), '\'' + var->getNameAsString() + "' holds a block of '" +
                                       a->blocks->getNameAsString() +
                                       "', which is read-only on a tile: declare it 'auto' or "
                                       "'s2p::field<N, const T>'");
        else if (deduced && !decl->isSingleDecl())
          fail(var->getLocation(),
               "declare '" + var->getNameAsString() +
                   "' on its own: a block of an input is read-only on a tile "
                   "(s2p::field<N, const T>), so it cannot share an 'auto' declaration");
      }
      return true;
    }
    bool TraverseDeclStmt(clang::DeclStmt* decl) {
      WalkUpFromDeclStmt(decl); // visits the initializers itself, in order
      return true;
    }
    void check_write(const clang::Expr* target, clang::SourceLocation where) {
      if (input_block(target))
        fail(where, "this writes to a block read through s2p::tiles(...); only the forall's "
                    "output block '" +
                        output->getNameAsString() + "(b)' may be written");
    }
  } finder;
  finder.self = this;
  finder.b = b;
  finder.rank = step.rank;
  finder.output = &output;
  finder.TraverseStmt(lambda.getBody());
  if (!finder.ok)
    return std::nullopt;

  ir::TileStep::IndexMap identity;
  for (int d = 0; d < step.rank; ++d)
    identity.axis.push_back(d), identity.offset.push_back(0);
  bool output_used = false;
  for (const auto& a : finder.accesses) {
    if (a.blocks == &output) {
      output_used = true;
      if (!(a.map == identity)) {
        error(a.call->getBeginLoc(),
              "a forall over '" + step.output + ".blocks()' computes block b of '" + step.output +
                  "' on the tile that owns it; it may access '" + step.output + "' only at b");
        return std::nullopt;
      }
      continue;
    }
    if (tile_blocks_.at(a.blocks) != step.rank) {
      error(a.call->getBeginLoc(), "'" + a.blocks->getNameAsString() + "' has rank " +
                                       std::to_string(tile_blocks_.at(a.blocks)) +
                                       "; the forall's blocks have rank " +
                                       std::to_string(step.rank));
      return std::nullopt;
    }
    if (!same_source(*a.blocks, output, a.call->getBeginLoc()))
      return std::nullopt;
    step.add_read(a.blocks->getNameAsString(), a.map);
  }
  if (!output_used) {
    error(call.getBeginLoc(), "this forall over '" + step.output +
                                  ".blocks()' never accesses its "
                                  "output block '" +
                                  step.output + "(b)'");
    return std::nullopt;
  }
  step.set_body(text(b->getSourceRange()), text(lambda.getBody()->getSourceRange()));
  return step;
}

namespace {

// The braced list an argument was written as ({2.0, 1.0}), through the constructor of the
// parameter type (extent, std::vector with its defaulted allocator) and initializer_list.
const clang::InitListExpr* braced_list(const clang::Expr* e) {
  e = strip(e);
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
      construct && construct->getNumArgs() >= 1)
    e = strip(construct->getArg(0));
  if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(e))
    e = strip(std_list->getSubExpr());
  return llvm::dyn_cast<clang::InitListExpr>(e);
}

// The integers of a constant extent argument ({32, 16}), or nothing if any is not constant.
std::optional<std::vector<std::int64_t>> constant_extent(const clang::Expr* e,
                                                         const clang::ASTContext& ctx) {
  const clang::InitListExpr* list = braced_list(e);
  if (!list)
    return std::nullopt;
  std::vector<std::int64_t> values;
  for (const clang::Expr* init : list->inits()) {
    clang::Expr::EvalResult value;
    if (!init->EvaluateAsInt(value, ctx))
      return std::nullopt;
    values.push_back(value.Val.getInt().getExtValue());
  }
  return values;
}

// Per axis, the constant split points of split_points' second argument ({{{16}, {16}}}),
// or nothing if the argument is not written out as constants.
std::optional<std::vector<std::vector<std::int64_t>>>
constant_splits(const clang::Expr* e, const clang::ASTContext& ctx) {
  const auto* list = llvm::dyn_cast<clang::InitListExpr>(strip(e));
  // std::array wraps a C array: its list holds one list with the axes.
  if (list && list->getNumInits() == 1)
    if (const auto* inner = llvm::dyn_cast<clang::InitListExpr>(strip(list->getInit(0))))
      list = inner;
  if (!list)
    return std::nullopt;
  std::vector<std::vector<std::int64_t>> axes;
  for (const clang::Expr* axis : list->inits()) {
    auto points = constant_extent(axis, ctx);
    if (!points)
      return std::nullopt;
    axes.push_back(std::move(*points));
  }
  return axes;
}

} // namespace

// A resource map whose sizes are constants is checked here, as the runtime would check it
// (resource_map::validate), so the mistake is a diagnostic instead of a run-time error:
// positive blocks, algorithmic blocks dividing memory blocks dividing segments, one weight
// per tile, no more tiles than the kernel spans.
void KernelExtractor::Impl::check_resource_map(const clang::VarDecl& var, ir::MultiTile& multi) {
  const int kernel_tiles = multi.tiles;
  if (!var.hasInit())
    return;
  std::vector<const clang::CXXMemberCallExpr*> chain; // outermost call first
  std::optional<std::vector<std::int64_t>> segment, memory, algorithmic;
  const clang::Expr *memory_arg = nullptr, *algorithmic_arg = nullptr;
  const clang::Expr* e = strip(var.getInit());
  // Walk the chain .weights(...).memory_blocks(...).algorithmic_blocks(...) down to the
  // protocol call.
  std::size_t weights = 0;
  const clang::Expr* weights_arg = nullptr;
  const clang::InitListExpr* weights_list = nullptr;
  while (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const std::string name =
        member->getMethodDecl() ? member->getMethodDecl()->getNameAsString() : "";
    chain.push_back(member);
    if (member->getNumArgs() == 1 && name == "memory_blocks" && !memory_arg)
      memory_arg = member->getArg(0), memory = constant_extent(memory_arg, ctx_);
    else if (member->getNumArgs() == 1 && name == "algorithmic_blocks" && !algorithmic_arg)
      algorithmic_arg = member->getArg(0), algorithmic = constant_extent(algorithmic_arg, ctx_);
    else if (member->getNumArgs() == 1 && name == "weights" && !weights_arg) {
      weights_arg = member->getArg(0);
      weights_list = braced_list(weights_arg);
      if (weights_list)
        weights = weights_list->getNumInits();
    }
    e = strip(member->getImplicitObjectArgument());
  }
  const auto* protocol = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl* callee = protocol ? protocol->getDirectCallee() : nullptr;
  if (!callee || !callee->getParent() ||
      s2p_template_name(ctx_.getRecordType(llvm::cast<clang::RecordDecl>(callee->getParent()))) !=
          "resource_map")
    return;
  const std::string name = callee->getNameAsString();
  const clang::Expr* tiles_arg = nullptr;
  if ((name == "block_cyclic" || name == "block_block") && protocol->getNumArgs() >= 3) {
    segment = constant_extent(protocol->getArg(1), ctx_);
    tiles_arg = protocol->getArg(2);
  } else if ((name == "block" || name == "cyclic") && protocol->getNumArgs() >= 2) {
    tiles_arg = protocol->getArg(1);
  } else if (name == "split_points" && protocol->getNumArgs() >= 3) {
    tiles_arg = protocol->getArg(2);
    if (const auto splits = constant_splits(protocol->getArg(1), ctx_))
      for (std::size_t d = 0; d < splits->size(); ++d)
        for (std::size_t k = 0; k < (*splits)[d].size(); ++k)
          if ((*splits)[d][k] <= (k ? (*splits)[d][k - 1] : 0)) {
            error(protocol->getArg(1)->getBeginLoc(),
                  "resource map '" + var.getNameAsString() + "', axis " + std::to_string(d) +
                      ": split points must be positive and strictly increasing (segments would "
                      "overlap or be empty); got " +
                      std::to_string((*splits)[d][k]) +
                      (k ? " after " + std::to_string((*splits)[d][k - 1]) : std::string()));
            return;
          }
  }
  clang::Expr::EvalResult tiles_value;
  std::optional<std::int64_t> tiles;
  if (tiles_arg && tiles_arg->EvaluateAsInt(tiles_value, ctx_))
    tiles = tiles_value.Val.getInt().getExtValue();
  const std::string map = "resource map '" + var.getNameAsString() + "'";
  if (tiles && (*tiles < 1 || *tiles > kernel_tiles)) {
    error(tiles_arg->getBeginLoc(), map + " deals its segments to " + std::to_string(*tiles) +
                                        " tiles; the kernel spans " + std::to_string(kernel_tiles) +
                                        " (S2P_TILES)");
    return;
  }
  if (tiles)
    map_tiles_[var.getNameAsString()] = static_cast<int>(*tiles);
  if (tiles && weights_arg && weights != 0 && static_cast<std::int64_t>(weights) != *tiles) {
    error(weights_arg->getBeginLoc(), map + " has " + std::to_string(weights) + " weights for " +
                                          std::to_string(*tiles) + " tiles");
    return;
  }
  if (weights_list)
    for (const clang::Expr* weight : weights_list->inits()) {
      // The list's elements are doubles (integers are converted), so a constant folds to one.
      llvm::APFloat value(0.0);
      if (weight->EvaluateAsFloat(value, ctx_) &&
          (value.isNegative() || value.isZero() || value.isNaN())) {
        error(weight->getBeginLoc(), map + ": tile weights must be positive");
        return;
      }
    }
  for (const auto& [sizes, arg] :
       {std::pair{segment, protocol && segment ? protocol->getArg(1) : nullptr},
        std::pair{memory, memory_arg}, std::pair{algorithmic, algorithmic_arg}})
    if (sizes && std::any_of(sizes->begin(), sizes->end(), [](std::int64_t v) { return v <= 0; })) {
      error(arg->getBeginLoc(), map + ": block extents must be positive");
      return;
    }
  // Memory blocks default to the segment, algorithmic blocks to the memory block.
  const auto& outer_memory = memory ? memory : segment;
  auto check_divides = [&](const std::optional<std::vector<std::int64_t>>& inner,
                           const std::optional<std::vector<std::int64_t>>& outer,
                           const clang::Expr* where, const char* inner_name,
                           const char* outer_name) {
    if (!inner || !outer || inner->size() != outer->size())
      return true;
    for (std::size_t d = 0; d < inner->size(); ++d)
      if ((*outer)[d] % (*inner)[d] != 0) {
        error(where->getBeginLoc(), map + ", axis " + std::to_string(d) + ": " + inner_name + " " +
                                        std::to_string((*inner)[d]) + " does not divide " +
                                        outer_name + " " + std::to_string((*outer)[d]));
        return false;
      }
    return true;
  };
  if (memory_arg && !check_divides(memory, segment, memory_arg, "memory block", "segment block"))
    return;
  if (algorithmic_arg &&
      !check_divides(algorithmic, outer_memory, algorithmic_arg, "algorithmic block",
                     memory ? "memory block" : "segment block"))
    return;
  if (auto spec = map_spec(*protocol, chain))
    multi.maps[var.getNameAsString()] = std::move(*spec);
}

// How a resource map is built, if every size but the parent extent is a constant and the
// parent is a constant or a field parameter's extent(): what a transpile-time plan needs.
std::optional<ir::MapSpec>
KernelExtractor::Impl::map_spec(const clang::CallExpr& protocol,
                                const std::vector<const clang::CXXMemberCallExpr*>& chain) const {
  ir::MapSpec spec;
  spec.protocol = protocol.getDirectCallee()->getNameAsString();
  const bool segmented = spec.protocol == "block_block" || spec.protocol == "block_cyclic";
  const bool split = spec.protocol == "split_points";
  const unsigned tiles_arg = segmented || split ? 2 : 1;
  if (!segmented && !split && spec.protocol != "block" && spec.protocol != "cyclic")
    return std::nullopt;
  if (protocol.getNumArgs() <= tiles_arg)
    return std::nullopt;
  auto integer = [&](const clang::Expr* e) -> std::optional<std::int64_t> {
    clang::Expr::EvalResult value;
    if (!e->EvaluateAsInt(value, ctx_))
      return std::nullopt;
    return value.Val.getInt().getExtValue();
  };
  // The parent: a constant extent, or X.extent() of a field parameter (or of its agile field).
  if (auto parent = constant_extent(protocol.getArg(0), ctx_)) {
    spec.parent = std::move(*parent);
  } else {
    const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(strip(protocol.getArg(0)));
    const clang::ValueDecl* object =
        call && call->getMethodDecl() && call->getMethodDecl()->getName() == "extent"
            ? referenced_decl(call->getImplicitObjectArgument())
            : nullptr;
    if (!object)
      return std::nullopt;
    const std::string name = object->getNameAsString();
    if (llvm::isa<clang::ParmVarDecl>(object) && s2p_template_name(object->getType()) == "field")
      spec.parent_parameter = name;
    else if (const auto known = source_parameter_.find(name); known != source_parameter_.end())
      spec.parent_parameter = known->second;
    else
      return std::nullopt;
  }
  if (segmented) {
    auto segment = constant_extent(protocol.getArg(1), ctx_);
    if (!segment)
      return std::nullopt;
    spec.segment = std::move(*segment);
  } else if (split) {
    auto splits = constant_splits(protocol.getArg(1), ctx_);
    if (!splits)
      return std::nullopt;
    spec.splits = std::move(*splits);
  }
  const auto tiles = integer(protocol.getArg(tiles_arg));
  if (!tiles)
    return std::nullopt;
  spec.tiles = static_cast<int>(*tiles);
  if (protocol.getNumArgs() > tiles_arg + 1) {
    const auto order = integer(protocol.getArg(tiles_arg + 1));
    if (!order)
      return std::nullopt;
    spec.columns = *order != 0;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const clang::CXXMemberCallExpr& member = **it;
    ir::MapSpec::Refinement step;
    if (!member.getMethodDecl() || member.getNumArgs() != 1)
      return std::nullopt;
    step.method = member.getMethodDecl()->getNameAsString();
    if (step.method == "weights") {
      const clang::InitListExpr* list = braced_list(member.getArg(0));
      if (!list)
        return std::nullopt;
      for (const clang::Expr* weight : list->inits()) {
        llvm::APFloat value(0.0);
        if (!weight->EvaluateAsFloat(value, ctx_))
          return std::nullopt;
        step.weights.push_back(value.convertToDouble());
      }
    } else if (step.method == "memory_blocks" || step.method == "algorithmic_blocks") {
      auto extent = constant_extent(member.getArg(0), ctx_);
      if (!extent)
        return std::nullopt;
      step.extent = std::move(*extent);
    } else {
      return std::nullopt;
    }
    spec.refinements.push_back(std::move(step));
  }
  return spec;
}

// `auto Xd = s2p::agile(X, map)` and `auto Xt = s2p::tiles(Xd)` both distribute X.
// A forall that reads the field it writes (an in-place transpose through two agile
// views of one parameter) would read elements other tiles are overwriting.
bool KernelExtractor::Impl::same_source(const clang::ValueDecl& input,
                                        const clang::ValueDecl& output,
                                        clang::SourceLocation where) {
  const auto in = source_parameter_.find(input.getNameAsString());
  const auto out = source_parameter_.find(output.getNameAsString());
  if (in == source_parameter_.end() || out == source_parameter_.end() || in->second != out->second)
    return true;
  error(where, "the forall reads '" + input.getNameAsString() + "' and writes '" +
                   output.getNameAsString() + "', which both distribute field '" + in->second +
                   "'; a forall cannot update a field in place: write the result to another "
                   "field");
  return false;
}

void KernelExtractor::Impl::note_source_parameter(const clang::VarDecl& var) {
  const auto* call =
      var.hasInit() ? llvm::dyn_cast<clang::CallExpr>(strip(var.getInit())) : nullptr;
  if (!call || call->getNumArgs() == 0)
    return;
  const clang::ValueDecl* source = referenced_decl(call->getArg(0));
  if (!source)
    return;
  const std::string name = source->getNameAsString();
  const auto known = source_parameter_.find(name);
  if (llvm::isa<clang::ParmVarDecl>(source))
    source_parameter_[var.getNameAsString()] = name;
  else if (known != source_parameter_.end())
    source_parameter_[var.getNameAsString()] = known->second;
}

void KernelExtractor::Impl::note_distribution(const clang::VarDecl& var, ir::MultiTile& multi) {
  const auto* call =
      var.hasInit() ? llvm::dyn_cast<clang::CallExpr>(strip(var.getInit())) : nullptr;
  const clang::ValueDecl* source =
      call && call->getNumArgs() > 0 ? referenced_decl(call->getArg(0)) : nullptr;
  if (!source)
    return;
  const std::string name = var.getNameAsString();
  if (call->getNumArgs() >= 2) { // s2p::agile(X, map)
    const clang::ValueDecl* map = referenced_decl(call->getArg(1));
    const auto parameter = source_parameter_.find(name);
    if (map && parameter != source_parameter_.end())
      multi.distributed[name] = {parameter->second, map->getNameAsString(),
                                 schedule_element_type(var.getType(), ctx_)};
  } else if (const auto known = multi.distributed.find(source->getNameAsString());
             known != multi.distributed.end()) { // s2p::tiles(Xd)
    multi.distributed[name] = known->second;
  }
}

namespace {

// The extent a field argument was built with: `s2p::field<2, T>(p, {96, 96})`, or a variable
// declared that way (its declaration; later assignments are not followed, which is safe:
// the template is then not the schedule that runs, and the runtime plans anew).
std::optional<std::vector<std::int64_t>> field_argument_extent(const clang::Expr* arg,
                                                               const clang::ASTContext& ctx) {
  const clang::Expr* e = strip(arg);
  if (const clang::ValueDecl* decl = referenced_decl(e)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!var || llvm::isa<clang::ParmVarDecl>(var) || !var->hasInit())
      return std::nullopt;
    e = strip(var->getInit());
  }
  const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
  if (!construct || construct->getNumArgs() != 2)
    return std::nullopt;
  return constant_extent(construct->getArg(1), ctx);
}

std::string extent_text(const std::vector<std::int64_t>& extent) {
  std::string text;
  for (std::size_t d = 0; d < extent.size(); ++d) {
    if (d) // not ("x" + std::to_string(...)): GCC 12 misreads it (-Wrestrict, GCC bug 105651)
      text += 'x';
    text += std::to_string(extent[d]);
  }
  return text;
}

} // namespace

// Seed 004 writes the schedule beside the code, which needs the fields' extents; a kernel
// only learns them from its arguments. When every call in this file passes fields of the
// same constant extents, those are the extents the template is planned for.
void KernelExtractor::Impl::find_call_extents(const clang::FunctionDecl& kernel,
                                              ir::MultiTile& multi) {
  const std::vector<const clang::CallExpr*>& calls = calls_.of(kernel);
  const std::string kernel_name = '\'' + kernel.getNameAsString() + "'";
  if (calls.empty()) {
    multi.no_extents_reason = kernel_name + " is not called in this file";
    return;
  }
  std::map<std::string, std::vector<std::int64_t>> extents;
  std::map<std::string, unsigned> first_line;
  for (const clang::CallExpr* call : calls) {
    const unsigned line = loc(call->getBeginLoc()).line;
    for (unsigned k = 0; k < kernel.getNumParams() && k < call->getNumArgs(); ++k) {
      const clang::ParmVarDecl* parameter = kernel.getParamDecl(k);
      if (s2p_template_name(parameter->getType()) != "field")
        continue;
      const std::string name = parameter->getNameAsString();
      const auto extent = field_argument_extent(call->getArg(k), ctx_);
      if (!extent) {
        multi.no_extents_reason = "the extent of '" + name + "' in the call at line " +
                                  std::to_string(line) + " is not a constant";
        return;
      }
      const auto [known, inserted] = extents.emplace(name, *extent);
      if (!inserted && known->second != *extent) {
        multi.no_extents_reason = "the calls at lines " + std::to_string(first_line[name]) +
                                  " and " + std::to_string(line) + " pass '" + name +
                                  "' with different extents (" + extent_text(known->second) + ", " +
                                  extent_text(*extent) + ")";
        return;
      }
      first_line.emplace(name, line);
    }
  }
  multi.parameter_extents = std::move(extents);
  multi.extents_from =
      calls.size() == 1
          ? "the call at " + display_file_ + ":" + std::to_string(loc(calls[0]->getBeginLoc()).line)
          : "the " + std::to_string(calls.size()) + " calls in " + display_file_;
}

// S2P_MOVE_MEMORY(C, B): some forall writes (a distribution of) parameter C and reads B.
// The owner-copy plan already moves every block a task needs once, before the tasks run;
// the annotation records that the author relies on it, and seq2par holds them to it.
void KernelExtractor::Impl::apply_move_memory(const clang::FunctionDecl& kernel,
                                              ir::MultiTile& multi) {
  for (const clang::Decl* redecl : kernel.redecls())
    for (const auto* attr : redecl->specific_attrs<clang::AnnotateAttr>()) {
      if (attr->getAnnotation() != "s2p.move_memory")
        continue;
      const auto* text =
          attr->args_size() == 1
              ? llvm::dyn_cast<clang::StringLiteral>((*attr->args_begin())->IgnoreParenImpCasts())
              : nullptr;
      std::vector<std::string> names;
      if (text) {
        llvm::SmallVector<llvm::StringRef, 2> parts;
        text->getString().split(parts, ',');
        for (const auto part : parts)
          names.push_back(part.trim().str());
      }
      auto is_field_parameter = [&](const std::string& name) {
        return std::any_of(
            kernel.param_begin(), kernel.param_end(), [&](const clang::ParmVarDecl* p) {
              return p->getNameAsString() == name && s2p_template_name(p->getType()) == "field";
            });
      };
      if (names.size() != 2) {
        error(attr->getLocation(), "S2P_MOVE_MEMORY(C, B) names two s2p::field parameters of the "
                                   "kernel: the field a forall writes and one it reads");
        continue;
      }
      const auto unknown = std::find_if_not(names.begin(), names.end(), is_field_parameter);
      if (unknown != names.end()) {
        error(attr->getLocation(), "S2P_MOVE_MEMORY(" + names[0] + ", " + names[1] + "): '" +
                                       *unknown + "' is not an s2p::field parameter of the kernel");
        continue;
      }
      auto source = [&](const std::string& variable) {
        const auto found = source_parameter_.find(variable);
        return found == source_parameter_.end() ? std::string() : found->second;
      };
      bool applied = false;
      for (auto& step : multi.steps) {
        if (step.kind != ir::TileStep::Kind::Forall || source(step.output) != names[0])
          continue;
        for (const auto& read : step.reads)
          if (source(read.field) == names[1]) {
            step.moved_at_start.push_back(read.field);
            applied = true;
          }
      }
      if (!applied)
        error(attr->getLocation(), "S2P_MOVE_MEMORY(" + names[0] + ", " + names[1] +
                                       "): no forall in this kernel writes '" + names[0] +
                                       "' and reads '" + names[1] + "'");
    }
}

std::optional<ir::Kernel> KernelExtractor::Impl::run_multi_tile(const clang::FunctionDecl& kernel,
                                                                const clang::CompoundStmt& body) {
  ir::MultiTile multi;
  const clang::AnnotateAttr* tiles_attr = nullptr;
  for (const clang::Decl* redecl : kernel.redecls())
    for (const auto* attr : redecl->specific_attrs<clang::AnnotateAttr>())
      if (attr->getAnnotation() == "s2p.tiles")
        tiles_attr = attr;
  clang::Expr::EvalResult value;
  if (!tiles_attr || tiles_attr->args_size() != 1 ||
      !(*tiles_attr->args_begin())->EvaluateAsInt(value, ctx_) ||
      value.Val.getInt().getSExtValue() < 1 || value.Val.getInt().getSExtValue() > (1 << 20)) {
    error(kernel.getLocation(), "S2P_TILES(n) needs a positive integer constant tile count");
    return std::nullopt;
  }
  multi.tiles = static_cast<int>(value.Val.getInt().getSExtValue());
  for (const clang::Stmt* stmt : body.body()) {
    if (llvm::isa<clang::NullStmt>(stmt))
      continue;
    if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      // Runs once, as in the sequential program: resource maps, agile fields, sizes.
      kernel_.preamble.push_back(text(decl->getSourceRange()));
      for (const clang::Decl* d : decl->decls()) {
        const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
        const std::string kind = var ? s2p_template_name(var->getType()) : "";
        if (kind == "agile_field")
          agile_fields_[var] = static_cast<int>(integer_template_args(var->getType()).front());
        else if (kind == "tile_blocks")
          tile_blocks_[var] = static_cast<int>(integer_template_args(var->getType()).front());
        if (kind == "agile_field" || kind == "tile_blocks")
          note_source_parameter(*var);
        if (kind == "resource_map")
          check_resource_map(*var, multi);
        if (kind == "agile_field" || kind == "tile_blocks")
          note_distribution(*var, multi);
      }
      continue;
    }
    const auto* e = llvm::dyn_cast<clang::Expr>(stmt);
    const auto* call = e ? llvm::dyn_cast<clang::CallExpr>(strip(e)) : nullptr;
    if (!call) {
      error(stmt->getBeginLoc(),
            "a multi-tile kernel is a sequence of declarations and collectives (s2p::all_reduce, "
            "s2p::reduce_scatter, s2p::all_gather); this statement is not supported here");
      continue;
    }
    if (auto step = multi_tile_call(*call))
      multi.steps.push_back(std::move(*step));
  }
  if (multi.steps.empty() && !failed_)
    error(kernel.getLocation(), "multi-tile kernel '" + kernel_.name + "' has no collective");
  if (!failed_)
    apply_move_memory(kernel, multi);
  if (!failed_)
    find_call_extents(kernel, multi);
  if (failed_)
    return std::nullopt;
  kernel_.multi_tile = std::move(multi);
  return std::move(kernel_);
}

} // namespace s2p::frontend
