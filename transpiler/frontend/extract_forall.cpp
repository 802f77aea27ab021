// s2p::forall over agile fields, in the full global view (X[i]) or the local-global view
// (Xt(b) blocks): the index maps of what the body reads, and the body rules (a forall body
// writes only its output, through its index).
#include "frontend/kernel_extractor_impl.h"
#include "frontend/access_model.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

namespace {

// The index map m(i) = i: a field read at the forall's own index.
ir::TileStep::IndexMap identity_map(int rank) {
  ir::TileStep::IndexMap identity;
  for (int d = 0; d < rank; ++d)
    identity.axis.push_back(d), identity.offset.push_back(0);
  return identity;
}

} // namespace

// Every subscript X[m(i)] of an agile field in a forall body over the global view: what it
// reads and writes.
struct KernelExtractor::Impl::ElementAccess {
  const clang::ValueDecl* field;
  ir::TileStep::IndexMap map;
  bool written;
  clang::SourceLocation where;
  bool compound = false; // written by `+=` and the like, which read the element first
  std::vector<ir::TileStep::IndexBound> guard{}; // the bounds the `if`s around it put on i
};

namespace {

// The parameters `helper` assigns to, takes the address of, or passes on as a mutable
// reference or pointer: an index it builds from one of them is no longer the argument it was
// called with (defined with the write visitor below).
std::set<const clang::ParmVarDecl*> written_parameters(const clang::FunctionDecl& helper);

// Helpers nest at most this deep inside a forall body (a recursive helper is refused there).
constexpr int kMaxHelperDepth = 8;

} // namespace

// Every element access X[m(i)] of an agile field in a forall body over the global view, also
// inside the visible helpers the body passes a field to (read as if inlined): what it reads
// and writes. Any other use of an agile field (a local reference to it, .data(), a helper
// seq2par cannot see) would read elements no index map records, so it is refused.
struct KernelExtractor::Impl::ElementAccessFinder
    : clang::RecursiveASTVisitor<ElementAccessFinder> {
  Impl* self;
  const clang::ParmVarDecl* i;
  int rank;
  std::vector<ElementAccess>* accesses;
  std::set<const clang::Expr*>* written;
  bool ok = true;
  const HelperArguments* through = nullptr; // inside a helper: its bindings
  int depth = 0;
  std::set<const clang::DeclRefExpr*> allowed{}; // field names used as X[...] or X.extent()
  std::set<const clang::Expr*> compound{};        // targets of `+=`, `-=`, ...
  const LoopRanges* loops = nullptr;               // the body's counted loops
  const clang::Stmt* body = nullptr;               // the forall body (guards stop there)
  // Inside a helper: the guard of the call that reached it (ifs inside helpers are not read).
  const std::vector<ir::TileStep::IndexBound>* call_guard = nullptr;
  std::vector<ir::TileStep::IndexBound> guard_at(const clang::Stmt& access) const {
    if (through)
      return call_guard ? *call_guard : std::vector<ir::TileStep::IndexBound>{};
    return body ? self->guard_of(access, *i, *body) : std::vector<ir::TileStep::IndexBound>{};
  }

  void fail(clang::SourceLocation where, const std::string& message) {
    self->error(where, message);
    ok = false;
  }
  // The kernel's agile field `decl` stands for: itself, or the one a helper parameter is bound to.
  const clang::ValueDecl* agile_of(const clang::ValueDecl* decl) const {
    if (!decl)
      return nullptr;
    if (through) {
      const auto bound = through->fields.find(decl);
      return bound == through->fields.end() ? nullptr : bound->second;
    }
    return self->agile_fields_.count(decl) ? decl : nullptr;
  }
  // "agile field 'Yd'", or "'f' (agile field 'Yd' in helper 'at_clamped')" inside a helper.
  std::string field_words(const clang::ValueDecl& name, const clang::ValueDecl& field) const {
    if (!through)
      return "agile field '" + field.getNameAsString() + '\'';
    return '\'' + name.getNameAsString() + "' (agile field '" + field.getNameAsString() +
           "' in helper '" + through->helper->getNameAsString() + "')";
  }
  void allow(const clang::Expr* e) {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(e)))
      allowed.insert(ref);
  }

  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->isAssignmentOp())
      written->insert(strip(b->getLHS()));
    if (b->isCompoundAssignmentOp())
      compound.insert(strip(b->getLHS()));
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->isAssignmentOp())
      written->insert(strip(call->getArg(0)));
    if (call->isAssignmentOp() && call->getOperator() != clang::OO_Equal)
      compound.insert(strip(call->getArg(0)));
    if (call->getOperator() != clang::OO_Subscript)
      return true;
    const clang::ValueDecl* name = referenced_decl(call->getArg(0));
    const clang::ValueDecl* field = agile_of(name);
    if (!field)
      return true;
    allow(call->getArg(0));
    const int field_rank = self->agile_fields_.at(field);
    auto map = self->index_map(call->getArg(1), i, rank, field_rank, loops, through);
    if (!map) {
      fail(call->getArg(1)->getBeginLoc(),
           "the index of " + field_words(*name, *field) + " (rank " +
               std::to_string(field_rank) +
               ") must be the forall's index, or one coordinate per axis of the field, each "
               "i[k] plus a constant, a variable of a counted loop of the body plus a constant, "
               "a constant, or a value of the kernel that names neither the index nor the "
               "body's other locals (like {i[1], i[0]}, {i[0], k}, {0, i[1]})" +
               (through ? "; inside a helper, from the helper's parameters that the forall "
                          "passed them (unchanged)"
                        : ""));
      return true;
    }
    const bool writes = written->count(call) > 0;
    if (writes && through) {
      fail(call->getBeginLoc(), "the forall body writes " + field_words(*name, *field) +
                                    " inside a helper; write the output in the forall body "
                                    "itself (Yd[i] = helper(...))");
      return true;
    }
    accesses->push_back(
        {field, *map, writes, call->getBeginLoc(), compound.count(call) > 0, guard_at(*call)});
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const clang::Expr* object = call->getImplicitObjectArgument();
    const clang::ValueDecl* name = referenced_decl(object);
    const clang::ValueDecl* field = agile_of(name);
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    if (!field || !method)
      return true;
    if (method->getName() == "extent" || method->getName() == "map") {
      allow(object); // the field's shape, not its elements
      return true;
    }
    allow(object);
    fail(call->getExprLoc(), "the forall body calls '" + method->getNameAsString() + "' on " +
                                 field_words(*name, *field) +
                                 ", which reaches elements no index of the body names; read "
                                 "elements as " + field->getNameAsString() + "[index]");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call);
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const clang::ValueDecl* field = agile_of(ref->getDecl());
    if (!field || allowed.count(ref))
      return true;
    fail(ref->getBeginLoc(),
         "the forall body uses " + field_words(*ref->getDecl(), *field) +
             " other than as an element (" + field->getNameAsString() +
             "[index]), its extent() or an argument of a visible helper; seq2par moves to each "
             "tile the elements the body's indices name, so a local reference, pointer or copy "
             "of the field would read elements it never moved: index the field itself");
    return true;
  }

private:
  bool read_helper(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                   HelperArguments& level);
};

// A call that passes agile fields to a helper: the helper's body is read as if inlined, with its
// parameters bound to the call's arguments.
bool KernelExtractor::Impl::ElementAccessFinder::VisitCallExpr(clang::CallExpr* call) {
  if (llvm::isa<clang::CXXOperatorCallExpr>(call) || llvm::isa<clang::CXXMemberCallExpr>(call))
    return true;
  bool passes_field = false;
  for (const clang::Expr* arg : call->arguments())
    if (agile_of(referenced_decl(arg))) {
      allow(arg); // judged here, as the helper's argument
      passes_field = true;
    }
  if (!passes_field)
    return true;
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !callee->getBody()) {
    fail(call->getBeginLoc(), "the forall body passes an agile field to '" +
                                  (callee ? callee->getNameAsString() : std::string("a call")) +
                                  "', whose body seq2par cannot see, so it cannot tell which "
                                  "elements it reads; define the helper where the kernel sees "
                                  "it, or read the elements in the body and pass their values");
    return true;
  }
  if (depth >= kMaxHelperDepth) {
    fail(call->getBeginLoc(), "helpers that read agile fields nest more than " +
                                  std::to_string(kMaxHelperDepth) +
                                  " deep here (a recursive helper?); seq2par reads a helper's "
                                  "accesses by inlining it");
    return true;
  }
  HelperArguments level;
  return read_helper(*call, *callee, level);
}

bool KernelExtractor::Impl::ElementAccessFinder::read_helper(const clang::CallExpr& call,
                                                             const clang::FunctionDecl& callee,
                                                             HelperArguments& level) {
  level.caller = through;
  level.helper = &callee;
  const clang::FunctionDecl* pattern = callee.getTemplateInstantiationPattern();
  const std::set<const clang::ParmVarDecl*> written_here = written_parameters(callee);
  for (unsigned a = 0; a < call.getNumArgs() && a < callee.getNumParams(); ++a) {
    const clang::ParmVarDecl* param = callee.getParamDecl(a);
    const clang::ValueDecl* name = referenced_decl(call.getArg(a));
    if (const clang::ValueDecl* field = agile_of(name)) {
      // Tiles pass their own view of a field (not an s2p::agile_field): the parameter's type
      // must be deduced for the generated code to compile.
      const clang::ParmVarDecl* declared = pattern ? pattern->getParamDecl(a) : nullptr;
      if (!declared || !declared->getType()->isDependentType()) {
        fail(param->getLocation(),
             "helper '" + callee.getNameAsString() + "' takes " +
                 field_words(*name, *field) + " as '" + param->getType().getAsString() +
                 "'; on the tiles the body reads a field through a view of its own, so a "
                 "helper takes it by a deduced type (const auto& f, or a template parameter)");
        return true;
      }
      level.fields[param] = field;
    }
    if (!written_here.count(param))
      level.arguments[param] = call.getArg(a);
  }
  ElementAccessFinder inner{{}, self, i, rank, accesses, written};
  // The caller's counted loops (an argument may be one of their variables) and the helper's.
  LoopRanges helper_loops = self->loop_ranges(*callee.getBody());
  if (loops)
    helper_loops.insert(loops->begin(), loops->end());
  inner.loops = &helper_loops;
  const std::vector<ir::TileStep::IndexBound> guard = guard_at(call);
  inner.call_guard = &guard;
  inner.through = &level;
  inner.depth = depth + 1;
  inner.TraverseStmt(callee.getBody());
  ok = ok && inner.ok;
  return true;
}

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
        tile_blocks_.count(domain)) {
      if (!check_forall_body(*lambda, true))
        return std::nullopt;
      return tile_forall_step(call, *lambda, *domain);
    }
  }
  if (!check_forall_body(*lambda, false))
    return std::nullopt;
  return global_forall_step(call, *lambda);
}

// s2p::forall(X.extent(), [&](s2p::index<N> i) { Y[i] = f(X[m(i)], ...); }): the body writes
// one agile field at i; every other agile field it reads is owner-copied at its index maps.
std::optional<ir::TileStep>
KernelExtractor::Impl::global_forall_step(const clang::CallExpr& call,
                                          const clang::LambdaExpr& lambda) {
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.loc = loc(call.getBeginLoc());
  step.text = text(call.getSourceRange());
  const clang::ParmVarDecl* i = lambda.getCallOperator()->getParamDecl(0);
  step.rank = static_cast<int>(integer_template_args(i->getType()).front());
  std::vector<ElementAccess> accesses;
  std::set<const clang::Expr*> written_subscripts;
  ElementAccessFinder finder{{}, this, i, step.rank, &accesses, &written_subscripts};
  const LoopRanges loops = loop_ranges(*lambda.getBody());
  finder.loops = &loops;
  finder.body = lambda.getBody();
  // Assignments are visited before their operands, so `written` is known at each subscript.
  finder.TraverseStmt(lambda.getBody());
  if (!finder.ok || !record_global_reads(step, accesses, call) ||
      !domain_is_output_extent(step, *call.getArg(0)))
    return std::nullopt;
  step.shared_reads = body_shared_reads_;
  step.index_parameter = text(i->getSourceRange());
  step.set_body(step.index_parameter, text(lambda.getBody()->getSourceRange()));
  if (std::any_of(step.reads.begin(), step.reads.end(), [](const auto& r) { return r.written; }))
    record_statements(step, lambda);
  record_iteration_box(step, *lambda.getBody(), *i);
  return step;
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

namespace {

// The guards of the body's writes of `output`, one per write; none when some write has no
// bound (the body may write any element).
template <class Access>
std::vector<std::vector<ir::TileStep::IndexBound>>
write_guards(const clang::ValueDecl* output, const std::vector<Access>& accesses) {
  std::vector<std::vector<ir::TileStep::IndexBound>> guards;
  for (const auto& a : accesses) {
    if (a.field != output || !a.written)
      continue;
    if (a.guard.empty())
      return {};
    guards.push_back(a.guard);
  }
  return guards;
}

} // namespace

// The first field the body writes becomes the step's output, the others its reads (each at
// the output's own index, or read through index maps). A body that writes several fields (the
// author fused them; --plan may split it again) has the further ones as reads marked
// `written`, on the output's map and each accessed only at the task's own index, as a fused
// forall's (pipeline/fuse_foralls.h).
bool KernelExtractor::Impl::record_global_reads(ir::TileStep& step,
                                                const std::vector<ElementAccess>& accesses,
                                                const clang::CallExpr& call) {
  std::vector<const clang::ValueDecl*> outputs; // in order of first write
  for (const auto& a : accesses)
    if (a.written && std::find(outputs.begin(), outputs.end(), a.field) == outputs.end())
      outputs.push_back(a.field);
  if (outputs.empty()) {
    error(call.getBeginLoc(), "this forall writes no agile field (write it as X[i] = ...)");
    return false;
  }
  if (!check_further_outputs(step, outputs, accesses))
    return false;
  const auto written = [&](const clang::ValueDecl* field) {
    return std::find(outputs.begin(), outputs.end(), field) != outputs.end();
  };
  for (std::size_t o = 1; o < outputs.size(); ++o)
    step.reads.push_back({outputs[o]->getNameAsString(), {identity_map(step.rank)}, true});
  const ir::TileStep::IndexMap identity = identity_map(step.rank);
  output_read_sites_.clear();
  for (const auto& a : accesses) {
    if (a.field == outputs.front() && !a.written && !(a.map == identity)) {
      ir::TileStep::IndexMap guarded = a.map;
      guarded.guard = a.guard;
      step.add_read(a.field->getNameAsString(), guarded);
      output_read_sites_.emplace_back(guarded, a.where);
    }
    if (written(a.field))
      continue;
    for (const auto* output : outputs)
      if (!same_source(*a.field, *output, a.where))
        return false;
    ir::TileStep::IndexMap guarded = a.map;
    guarded.guard = a.guard;
    step.add_read(a.field->getNameAsString(), guarded);
  }
  step.output = outputs.front()->getNameAsString();
  step.output_write_guards = write_guards(outputs.front(), accesses);
  step.output_read = std::any_of(accesses.begin(), accesses.end(), [&](const ElementAccess& a) {
    return a.field == outputs.front() && (!a.written || a.compound);
  });
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

bool KernelExtractor::Impl::check_further_outputs(
    const ir::TileStep& step, const std::vector<const clang::ValueDecl*>& outputs,
    const std::vector<ElementAccess>& accesses) {
  const ir::TileStep::IndexMap identity = identity_map(step.rank);
  for (const auto& a : accesses) {
    const auto at = std::find(outputs.begin(), outputs.end(), a.field);
    if (at == outputs.end())
      continue;
    const std::string name = a.field->getNameAsString();
    // A read of the one output at another index: planned as a read of it, and allowed when
    // the access relations prove no other iteration writes what it reads (check_output_reads).
    if (!(a.map == identity) && !a.written && outputs.size() == 1)
      continue;
    if (!(a.map == identity)) {
      error(a.where, "the forall " + std::string(a.written ? "writes" : "reads") + " '" + name +
                         (outputs.size() == 1 ? "', the field it writes" : "', a field it writes") +
                         ", at another index than its own; each element must be computed where it "
                         "is owned, from values of the other fields");
      return false;
    }
    const clang::ValueDecl* first = outputs.front();
    if (at == outputs.begin() || !a.written)
      continue;
    const std::string map = map_of(name), first_map = map_of(first->getNameAsString());
    if (map.empty() || map != first_map) {
      error(a.where, "a forall that writes several agile fields writes them on one resource map "
                     "(each element is computed where it is owned): '" + name + "' is dealt by '" +
                         map + "' and '" + first->getNameAsString() + "' by '" + first_map +
                         "'");
      return false;
    }
    if (source_of(name) == source_of(first->getNameAsString())) {
      error(a.where, "the forall writes '" + name + "' and '" + first->getNameAsString() +
                         "', which both distribute field '" + source_of(name) + "'");
      return false;
    }
  }
  return true;
}

namespace {

// What one top-level statement of a forall body does with the body's locals: which it declares
// (directly, not in a nested block), which it reads, and whether it may return (which skips the
// later statements for its index).
struct StatementLocals : clang::RecursiveASTVisitor<StatementLocals> {
  const clang::CXXMethodDecl* op;
  const clang::ParmVarDecl* index;
  const std::set<const clang::ValueDecl*>* shared;
  std::vector<const clang::VarDecl*> used;
  std::vector<std::string> shared_reads;
  bool returns = false;
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (var && shared->count(var)) {
      const std::string name = var->getNameAsString();
      if (std::find(shared_reads.begin(), shared_reads.end(), name) == shared_reads.end())
        shared_reads.push_back(name);
    }
    if (var && var != index && var->getDeclContext() == op &&
        std::find(used.begin(), used.end(), var) == used.end())
      used.push_back(var);
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt*) {
    returns = true;
    return true;
  }
};

} // namespace

// Each top-level statement of a body that writes several fields, with what it writes, reads,
// declares and uses: what a split (pipeline/split_foralls.h) needs to cut the body into
// consecutive foralls without Clang.
void KernelExtractor::Impl::record_statements(ir::TileStep& step, const clang::LambdaExpr& lambda) {
  const auto* body = llvm::dyn_cast<clang::CompoundStmt>(lambda.getBody());
  const clang::ParmVarDecl* i = lambda.getCallOperator()->getParamDecl(0);
  if (!body)
    return;
  std::map<const clang::VarDecl*, std::size_t> declared_by; // top-level locals -> statement
  std::size_t n = 0;
  for (const clang::Stmt* child : body->body()) {
    if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(child))
      for (const clang::Decl* d : decls->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(d))
          declared_by.emplace(var, n);
    ++n;
  }
  for (const clang::Stmt* child : body->body()) {
    const std::size_t k = step.statements.size();
    ir::TileStep::Statement statement;
    statement.loc = loc(child->getBeginLoc());
    statement.text = text(child->getSourceRange());
    if (llvm::isa<clang::Expr>(child) || llvm::isa<clang::DoStmt>(child))
      statement.text += ";";
    std::vector<ElementAccess> accesses;
    std::set<const clang::Expr*> written;
    ElementAccessFinder finder{{}, this, i, step.rank, &accesses, &written};
    const LoopRanges loops = loop_ranges(*child);
    finder.loops = &loops;
    finder.TraverseStmt(const_cast<clang::Stmt*>(child));
    for (const auto& a : accesses)
      if (a.written && std::find(statement.writes.begin(), statement.writes.end(),
                                 a.field->getNameAsString()) == statement.writes.end())
        statement.writes.push_back(a.field->getNameAsString());
    ir::TileStep reads; // add_read's bookkeeping
    for (const auto& a : accesses)
      if (std::find(statement.writes.begin(), statement.writes.end(),
                    a.field->getNameAsString()) == statement.writes.end())
        reads.add_read(a.field->getNameAsString(), a.map);
    statement.reads = std::move(reads.reads);
    StatementLocals locals{{}, lambda.getCallOperator(), i, &shared_params_, {}, {}, false};
    locals.TraverseStmt(const_cast<clang::Stmt*>(child));
    statement.shared_reads = std::move(locals.shared_reads);
    statement.returns = locals.returns;
    for (const auto& [var, by] : declared_by)
      if (by == k)
        statement.declares.push_back(var->getNameAsString());
    for (const clang::VarDecl* var : locals.used)
      if (const auto d = declared_by.find(var); d != declared_by.end() && d->second != k)
        statement.uses.push_back(var->getNameAsString());
    step.statements.push_back(std::move(statement));
  }
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
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* call) {
    if (call->isAssignmentOp() || call->getOperator() == clang::OO_PlusPlus ||
        call->getOperator() == clang::OO_MinusMinus)
      self().check_write(call->getArg(0), call->getOperatorLoc());
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    const auto* method = call->getMethodDecl();
    if (method && !method->isConst() && !method->isStatic())
      self().check_write(call->getImplicitObjectArgument(), call->getExprLoc());
    return true;
  }
  // An argument bound to a mutable reference or pointer parameter may be written.
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || llvm::isa<clang::CXXOperatorCallExpr>(call))
      return true;
    for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
      const clang::QualType type = callee->getParamDecl(i)->getType();
      const bool mutable_ref =
          type->isReferenceType() && !type.getNonReferenceType().isConstQualified();
      const bool mutable_pointer =
          type->isPointerType() && !type->getPointeeType().isConstQualified();
      if (mutable_ref || mutable_pointer)
        self().check_write(call->getArg(i), call->getArg(i)->getBeginLoc());
    }
    return true;
  }

private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// The parameters of a helper that it may change (see written_parameters): written as its
// write visitor sees writes, or made reachable for writing (its address, a mutable reference).
class ParameterWrites : public WriteVisitor<ParameterWrites> {
public:
  std::set<const clang::ParmVarDecl*> written;
  void check_write(const clang::Expr* target, clang::SourceLocation) {
    if (const auto* param = llvm::dyn_cast_or_null<clang::ParmVarDecl>(
            referenced_decl(access_root(target))))
      written.insert(param);
  }
  bool VisitUnaryOperator(clang::UnaryOperator* op) {
    if (op->getOpcode() == clang::UO_AddrOf)
      check_write(op->getSubExpr(), op->getOperatorLoc());
    return WriteVisitor::VisitUnaryOperator(op);
  }
  bool VisitVarDecl(clang::VarDecl* var) {
    const clang::QualType type = var->getType();
    if (var->hasInit() && type->isReferenceType() && !type.getNonReferenceType().isConstQualified())
      check_write(var->getInit(), var->getLocation());
    return true;
  }
};

std::set<const clang::ParmVarDecl*> written_parameters(const clang::FunctionDecl& helper) {
  ParameterWrites writes;
  writes.TraverseStmt(helper.getBody());
  return std::move(writes.written);
}

// The forall body rules: every tile runs the body at once, so the body may write only its
// output (element or block) and its own locals, and may compute nothing that depends on
// which tile runs it. Anything else it reaches is refused, at the construct.
class ForallBodyRules : public WriteVisitor<ForallBodyRules> {
public:
  using Fail = std::function<void(clang::SourceLocation, const std::string&)>;
  ForallBodyRules(const clang::LambdaExpr& lambda, std::function<bool(const clang::ValueDecl*)> distributed,
                  std::function<bool(const clang::ValueDecl*)> shared, bool local_global, Fail fail)
      : op_(*lambda.getCallOperator()), distributed_(std::move(distributed)),
        shared_(std::move(shared)), local_global_(local_global), fail_(std::move(fail)) {}

  // The S2P_SHARED parameters the body reads, in order of first use.
  const std::vector<std::string>& shared_reads() const { return shared_reads_; }

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (var && shared_(var)) {
      note_shared_read(*var, ref->getBeginLoc());
      return true;
    }
    if (!captured(var) || distributed_(var))
      return true;
    if (s2p_template_name(var->getType()) != "field") {
      check_host_memory_read(*var, ref->getBeginLoc());
      return true;
    }
    if (local_global_ && llvm::isa<clang::ParmVarDecl>(var))
      return true; // the tile-view rules name it already
    fail_(ref->getBeginLoc(),
          '\'' + var->getNameAsString() +
              "' is the plain field, which bypasses the distribution: inside a forall, read and "
              "write data only through agile fields (Xd[i]) or tile views (Xt(b))");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    if (callable_object_call(*call))
      return true;
    return WriteVisitor::VisitCallExpr(call);
  }

  // A local pointer or reference (or view) made from a captured variable writes what the
  // capture reaches, out of the write check's sight: refused where it is made.
  bool VisitVarDecl(clang::VarDecl* var) {
    const clang::QualType type = var->getType();
    const bool aliases = type->isPointerType() || type->isReferenceType() ||
                         s2p_template_name(type.getNonReferenceType()) == "field";
    if (!aliases || !var->hasInit() || var->getType().getNonReferenceType().isConstQualified())
      return true;
    if (const auto* from = captured_in(var->getInit()); from && reported_.insert(from).second)
      fail_(var->getLocation(),
            '\'' + var->getNameAsString() + "' refers to '" + from->getNameAsString() +
                "', which the forall body captured from the kernel; every tile runs the body at "
                "once, so a forall may write only its output and its own local variables");
    return true;
  }

  void check_write(const clang::Expr* target, clang::SourceLocation where) {
    const auto* root = llvm::dyn_cast<clang::DeclRefExpr>(access_root(target));
    const auto* var = root ? llvm::dyn_cast<clang::VarDecl>(root->getDecl()) : nullptr;
    if (var && shared_(var)) {
      fail_(where, "the forall body writes '" + var->getNameAsString() +
                       "', which is S2P_SHARED: a shared structure is read-only for the whole "
                       "kernel (every tile reads its own copy of it); write results to an agile "
                       "field, or drop S2P_SHARED");
      return;
    }
    if (var && var == op_.getParamDecl(0)) {
      fail_(where, "the forall body changes its index '" + var->getNameAsString() +
                       "'; seq2par plans the elements each task reads from the index it is "
                       "given: write the offset in the index instead ({" +
                       var->getNameAsString() + "[0] + 1})");
      return;
    }
    if (!captured(var) || distributed_(var) || !reported_.insert(var).second)
      return;
    fail_(where, "the forall body writes '" + var->getNameAsString() +
                     "', which it captured from the kernel; every tile runs the body at once, "
                     "so a forall may write only its output and its own local variables "
                     "(collect per-element results in an output field)");
  }

private:
  // A capture that reaches memory outside its own bytes is read on the tiles where it lies,
  // unordered with the forall's writes and never moved: refused at its first use.
  void check_host_memory_read(const clang::VarDecl& var, clang::SourceLocation where) {
    if (!reported_.insert(&var).second)
      return;
    const auto reach = host_memory_reach(var.getType());
    if (!reach)
      return;
    fail_(where, "the forall body reads '" + var.getNameAsString() + "', " + *reach +
                     " captured from the kernel: tiles would read the memory behind it in "
                     "place, unmoved and unordered with the forall's writes (the sequential "
                     "loop sees its own earlier writes there); pass a plain value (a scalar or "
                     "a struct of scalars, by value) or a table as an S2P_SHARED s2p::field");
  }
  void note_shared_read(const clang::VarDecl& var, clang::SourceLocation where) {
    if (local_global_) {
      fail_(where, '\'' + var.getNameAsString() +
                       "' is S2P_SHARED; shared structures are read in foralls over the full "
                       "global view (s2p::forall(Xd.extent(), ...)) only, not yet block by block");
      return;
    }
    const std::string name = var.getNameAsString();
    if (std::find(shared_reads_.begin(), shared_reads_.end(), name) == shared_reads_.end())
      shared_reads_.push_back(name);
  }
  // A call whose body seq2par cannot follow from here: through a function pointer, or of a
  // callable object (a lambda or functor the kernel made, which may write what it captured).
  bool callable_object_call(const clang::CallExpr& call) {
    const clang::VarDecl* callee = nullptr; // the object or pointer called, when a variable
    const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(&call);
    if (op && op->getOperator() == clang::OO_Call) {
      // Views (Xt(b), a local block c(j)) are called too; the plain field has its own rule.
      const auto* root = llvm::dyn_cast<clang::DeclRefExpr>(access_root(op->getArg(0)));
      callee = root ? llvm::dyn_cast<clang::VarDecl>(root->getDecl()) : nullptr;
      if (!captured(callee) || distributed_(callee) ||
          s2p_template_name(callee->getType()) == "field")
        return false;
    } else if (call.getDirectCallee()) {
      return false;
    } else if (const auto* root = llvm::dyn_cast<clang::DeclRefExpr>(access_root(call.getCallee()))) {
      callee = llvm::dyn_cast<clang::VarDecl>(root->getDecl());
    }
    if (callee && !reported_.insert(callee).second)
      return true;
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
  std::function<bool(const clang::ValueDecl*)> shared_;
  bool local_global_;
  Fail fail_;
  std::vector<std::string> shared_reads_;
  // Captures a diagnostic already names: their other uses say nothing more.
  std::set<const clang::VarDecl*> reported_;
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
      [this](const clang::ValueDecl* d) { return shared_params_.count(d) > 0; }, local_global,
      fail);
  rules.TraverseStmt(lambda.getBody());
  body_shared_reads_ = rules.shared_reads();
  for (const HiddenState& state : find_hidden_state(*lambda.getBody(), UnseenCalls::Refused)) {
    const std::string why = !state.why.empty() ? state.why
                            : state.variable
                                ? "; every tile runs the body at once, so they would race on it "
                                  "(mark a function whose state changes no result "
                                  "S2P_HARMLESS_STATE)"
                                : "; a forall must compute each element the same way wherever "
                                  "it runs";
    fail(state.where, "the forall body " + state.what + why);
  }
  return ok;
}

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
    return input_views.count(referenced_decl(root)) > 0;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* op) {
    if (op->getOperator() != clang::OO_Call)
      return true;
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(strip(op->getArg(0)));
    if (!ref || !self->tile_blocks_.count(ref->getDecl()))
      return true;
    allowed.insert(ref);
    auto map =
        op->getNumArgs() == 2 ? self->index_map(op->getArg(1), b, rank, rank, loops) : std::nullopt;
    if (!map) {
      fail(op->getBeginLoc(), "a tile access '" + ref->getDecl()->getNameAsString() +
                                  "(...)' takes the block index, or one built from it with each "
                                  "coordinate b[k] plus a constant (like {b[1], b[0]}), a "
                                  "variable of a loop in the body (like {b[0], k}: the task "
                                  "reads every block of the loop's range), a constant, or a "
                                  "value of the kernel");
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

namespace {

// for (T k = first; k < end; ++k / k++ / k += c): k, and [first, end) when first and end are
// constants and the body leaves k to the header (nullopt: bounds the kernel knows only when it runs, or that depend on the index
// or on an outer loop, so k may be anything inside the field it indexes).
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
  // k < a && k < b (and other conjuncts): counted, its range known only when it runs.
  bool conjunction_bound = false;
  if (cond->getOpcode() == clang::BO_LAnd)
    for (const clang::Expr* side : {cond->getLHS(), cond->getRHS()})
      if (const auto* c = llvm::dyn_cast<clang::BinaryOperator>(strip(side)))
        conjunction_bound = conjunction_bound || bounds(c);
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
  clang::Expr::EvalResult first, bound;
  if (conjunction_bound || (loop.getBody() && may_write(*loop.getBody(), *var)) ||
      !var->getInit()->EvaluateAsInt(first, ctx) ||
      !cond->getRHS()->EvaluateAsInt(bound, ctx))
    return std::make_pair(var, LoopRange{});
  const std::int64_t lo = first.Val.getInt().getExtValue();
  const std::int64_t hi =
      bound.Val.getInt().getExtValue() + (cond->getOpcode() == clang::BO_LE ? 1 : 0);
  if (hi <= lo)
    return std::nullopt;
  return std::make_pair(var, LoopRange{std::make_pair(lo, hi)});
}

} // namespace

KernelExtractor::Impl::LoopRanges
KernelExtractor::Impl::loop_ranges(const clang::Stmt& body) const {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::ASTContext* ctx;
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
