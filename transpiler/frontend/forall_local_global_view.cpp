// A forall over tile blocks (the local-global view, Xt(b)): its tile accesses, their index
// maps and the rules of such a body.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/forall_visitors.h"
#include "frontend/access_model.h"
#include "frontend/s2p_types.h"

#include <set>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

// A tile access Xt(m(b)) in a forall over tile blocks.
struct KernelExtractor::Impl::TileAccess {
  const clang::ValueDecl* blocks;
  ir::TileStep::IndexMap map;
  const clang::Expr* call;
};

// The tile accesses of a forall body in the local-global view, and its rules: no agile fields
// or whole fields (no tile holds them), tile views only called with a block index or asked
// for .blocks(), and blocks of inputs read-only.
struct KernelExtractor::Impl::TileAccessFinder : WriteVisitor<TileAccessFinder> {
  Impl* self = nullptr;
  const clang::ParmVarDecl* b = nullptr;
  int rank = 0;
  const clang::ValueDecl* output = nullptr;
  const LoopRanges* loops = nullptr; // loop variables a tile access may use as coordinates
  const clang::Stmt* body = nullptr;  // the forall body (the guards of an access stop there)
  std::vector<TileAccess> accesses;
  std::set<const clang::DeclRefExpr*> allowed;   // tile views used as Xt(m) or Xt.blocks()
  std::set<const clang::ValueDecl*> input_views; // variables holding an input block
  bool ok = true;

  void fail(clang::SourceLocation where, const std::string& message) {
    self->error(where, message);
    ok = false;
  }
  const TileAccess* tile_access(const clang::Expr* e) const {
    e = strip(e);
    for (const auto& a : accesses)
      if (a.call == e)
        return &a;
    return nullptr;
  }
  bool input_block(const clang::Expr* e) const {
    const clang::Expr* root = access_root(e);
    if (const TileAccess* a = tile_access(root))
      return a->blocks != output;
    return input_views.contains(referenced_decl(root));
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* op) {
    if ((op->getOperator() == clang::OO_Call || op->getOperator() == clang::OO_Subscript) &&
        input_block(op->getArg(0)))
      check_element_use(*op);
    if (op->getOperator() != clang::OO_Call)
      return true;
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(op->getArg(0)));
    if (!ref || !self->tile_blocks_.contains(ref->getDecl()))
      return true;
    allowed.insert(ref);
    auto map =
        op->getNumArgs() == 2 ? self->index_map(op->getArg(1), b, rank, rank, loops) : std::nullopt;
    if (!map) {
      fail(op->getBeginLoc(), "a tile access '" + ref->getDecl()->getNameAsString() +
                                  "(...)' takes the block index, or one built from it with each "
                                  "coordinate b[k] (or a constant times it) plus a constant (like "
                                  "{b[1], b[0]}, {2 * b[0], k}), a "
                                  "variable of a loop in the body (like {b[0], k}: the task "
                                  "reads every block of the loop's range), a constant, or a "
                                  "value of the kernel");
      return true;
    }
    // The `if`s around the access on the block index (a boundary task reads no neighbour:
    // `if (b[1] >= 1) ... At({b[0], b[1] - 1})`) narrow the blocks it is planned to read.
    if (ref->getDecl() != output)
      map->guard = self->guard_of(*op, *b, *body);
    accesses.push_back({ref->getDecl(), *map, op});
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* member) {
    if (const auto* ref =
            llvm::dyn_cast<clang::DeclRefExpr>(strip(member->getImplicitObjectArgument()));
        ref && self->tile_blocks_.contains(ref->getDecl()) && member->getMethodDecl() &&
        member->getMethodDecl()->getName() == "blocks")
      allowed.insert(ref);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const clang::ValueDecl* decl = ref->getDecl();
    if (self->agile_fields_.contains(decl))
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
    else if (self->tile_blocks_.contains(decl) && !allowed.contains(ref))
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
      const TileAccess* a = tile_access(var->getInit());
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
  // An argument is not a write here: an input block is a view of const elements
  // (s2p::field<N, const T>), so no callee writes its data through it.
  bool VisitCallExpr(clang::CallExpr*) { return true; }
  // An element of an input block bound to a reference it may write through, or its address
  // taken: on a tile the block is read-only (s2p::field<N, const T>), so the generated task
  // would not compile where the sequential build writes the input.
  void check_element_use(const clang::CXXOperatorCallExpr& element) {
    if (element_use(element, self->ctx_) == ElementUse::Value)
      return;
    fail(element.getBeginLoc(),
         "this binds an element of a block read through s2p::tiles(...) to a reference or "
         "pointer it may write through; only the forall's output block '" +
             output->getNameAsString() + "(b)' may be written (read the element by value, or "
             "through a const reference)");
  }
  void check_write(const clang::Expr* target, clang::SourceLocation where) {
    if (input_block(target))
      fail(where, "this writes to a block read through s2p::tiles(...); only the forall's "
                  "output block '" +
                      output->getNameAsString() + "(b)' may be written");
  }
};

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
  TileAccessFinder finder;
  finder.self = this;
  finder.b = b;
  finder.rank = step.rank;
  finder.output = &output;
  const LoopRanges loops = loop_ranges(*lambda.getBody());
  finder.loops = &loops;
  finder.body = lambda.getBody();
  finder.TraverseStmt(lambda.getBody());
  if (!finder.ok || !record_tile_reads(step, finder.accesses, output, call))
    return std::nullopt;
  step.set_body(text(b->getSourceRange()), text(lambda.getBody()->getSourceRange()));
  if (is_warp_task(*lambda.getBody())) {
    auto task = extract_task(lambda, next_step_, step.output);
    if (!task) {
      failed_ = true;
      return std::nullopt;
    }
    step.task = std::make_shared<const ir::Kernel>(std::move(*task));
  }
  return step;
}

// The output is accessed at b only; every other tile view is a read of the step, of the
// forall's rank and not the output's own data.
bool KernelExtractor::Impl::record_tile_reads(ir::TileStep& step,
                                              const std::vector<TileAccess>& accesses,
                                              const clang::ValueDecl& output,
                                              const clang::CallExpr& call) {
  const ir::TileStep::IndexMap identity = identity_map(step.rank);
  bool output_used = false;
  for (const auto& a : accesses) {
    if (a.blocks == &output) {
      output_used = true;
      if (!(a.map == identity)) {
        error(a.call->getBeginLoc(),
              "a forall over '" + step.output + ".blocks()' computes block b of '" + step.output +
                  "' on the tile that owns it; it may access '" + step.output + "' only at b");
        return false;
      }
      continue;
    }
    if (tile_blocks_.at(a.blocks) != step.rank) {
      error(a.call->getBeginLoc(), "'" + a.blocks->getNameAsString() + "' has rank " +
                                       std::to_string(tile_blocks_.at(a.blocks)) +
                                       "; the forall's blocks have rank " +
                                       std::to_string(step.rank));
      return false;
    }
    if (!same_source(*a.blocks, output, a.call->getBeginLoc()))
      return false;
    step.add_read(a.blocks->getNameAsString(), a.map);
  }
  if (!output_used) {
    error(call.getBeginLoc(), "this forall over '" + step.output +
                                  ".blocks()' never accesses its "
                                  "output block '" +
                                  step.output + "(b)'");
    return false;
  }
  return true;
}

} // namespace s2p::frontend
