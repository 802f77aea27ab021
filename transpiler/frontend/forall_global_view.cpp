// A forall over the full global view (X[i]): the element accesses of its body, inside the
// helpers it passes fields to as well, their index maps, and the outputs it writes.
#include "frontend/element_access_finder.h"
#include "frontend/access_model.h"
#include "frontend/s2p_types.h"

#include <algorithm>
#include <map>
#include <set>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

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
    } else if (const clang::CXXRecordDecl* closure = closure_of(arg)) {
      passes_field = passes_field || reaches_fields(*closure);
    }
  if (!passes_field)
    return true;
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (callee && callee->getBody() && !pass_closures(*call))
    return true;
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
  for (unsigned a = 0; a < call.getNumArgs(); ++a) {
    const clang::Expr* argument = call.getArg(a);
    const clang::ParmVarDecl* param = parameter_of(call, a); // a lambda's object binds none
    if (!param)
      continue;
    const clang::ValueDecl* name = referenced_decl(argument);
    if (const clang::ValueDecl* field = agile_of(name)) {
      // Tiles pass their own view of a field (not an s2p::agile_field): the parameter's type
      // must be deduced for the generated code to compile.
      const clang::ParmVarDecl* declared =
          pattern ? pattern->getParamDecl(param->getFunctionScopeIndex()) : nullptr;
      if (!declared || !declared->getType()->isDependentType()) {
        fail(param->getLocation(),
             (level.body_lambda ? std::string("the lambda")
                                : "helper '" + callee.getNameAsString() + '\'') + " takes " +
                 field_words(*name, *field) + " as '" + param->getType().getAsString() +
                 "'; on the tiles the body reads a field through a view of its own, so a "
                 "helper takes it by a deduced type (const auto& f, or a template parameter)");
        return true;
      }
      level.fields[param] = field;
    }
    if (!written_here.contains(param))
      level.arguments[param] = argument;
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
// forall's (pass_manager/fuse_foralls.h).
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
// declares and uses: what a split (pass_manager/split_foralls.h) needs to cut the body into
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
    // An expression's and a do-while's range stop before their `;`, and so do a loop's, an
    // `if`'s or a `return`'s whose last part is an expression: the split copies the `;` too.
    if (llvm::isa<clang::Expr>(child) || llvm::isa<clang::DoStmt>(child) ||
        followed_by_semicolon(*child))
      statement.text += ";";
    std::vector<ElementAccess> accesses;
    std::set<const clang::Expr*> written;
    ElementAccessFinder finder{{}, this, i, step.rank, &accesses, &written};
    const LoopRanges loops = loop_ranges(*child);
    finder.loops = &loops;
    finder.body = lambda.getBody(); // the `if`s around a read guard it in its part too
    finder.TraverseStmt(const_cast<clang::Stmt*>(child));
    for (const auto& a : accesses)
      if (a.written && std::find(statement.writes.begin(), statement.writes.end(),
                                 a.field->getNameAsString()) == statement.writes.end())
        statement.writes.push_back(a.field->getNameAsString());
    ir::TileStep reads; // add_read's bookkeeping
    for (const auto& a : accesses)
      if (std::find(statement.writes.begin(), statement.writes.end(),
                    a.field->getNameAsString()) == statement.writes.end()) {
        ir::TileStep::IndexMap guarded = a.map; // as record_global_reads keeps it
        guarded.guard = a.guard;
        reads.add_read(a.field->getNameAsString(), guarded);
      }
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

} // namespace s2p::frontend
