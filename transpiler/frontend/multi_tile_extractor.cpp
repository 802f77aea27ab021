// S2P_TILES kernels (seeds 002, 004): ring collectives over per-tile rows and foralls over
// agile fields, in the full global view (X[i]) or the local-global view (Xt(b) blocks).
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

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
      return (t->isSignedIntegerType() ? "i" : "u") + std::to_string(bits);
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
    auto it = std::find_if(step.reads.begin(), step.reads.end(),
                           [&](const auto& r) { return r.field == a.field->getNameAsString(); });
    if (it == step.reads.end())
      it = step.reads.insert(step.reads.end(), {a.field->getNameAsString(), {}});
    if (std::find(it->maps.begin(), it->maps.end(), a.map) == it->maps.end())
      it->maps.push_back(a.map);
  }
  step.output = output->getNameAsString();
  std::string params = text(i->getSourceRange()) + ", auto& " + step.output;
  for (const auto& r : step.reads)
    params += ", auto& " + r.field;
  step.body = "[&](" + params + ") " + text(lambda->getBody()->getSourceRange());
  return step;
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
      for (const clang::Decl* d : decl->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
            var && s2p_template_name(var->getType()) == "agile_field")
          agile_fields_[var] = static_cast<int>(integer_template_args(var->getType()).front());
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
  if (failed_)
    return std::nullopt;
  kernel_.multi_tile = std::move(multi);
  return std::move(kernel_);
}

} // namespace s2p::frontend
