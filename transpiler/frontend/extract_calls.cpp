// Calls in a kernel body: intrinsic calls (the schedule tree's leaves, with the access
// model's checks) and helper functions inlined into the schedule tree.
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

// A statement expression is refused whole by the rule table (unsupported_constructs.cpp):
// what it contains is not reported again, once that error is out (failed_).
bool contains_statement_expression(const clang::Stmt* s) {
  if (!s)
    return false;
  if (llvm::isa<clang::StmtExpr>(s))
    return true;
  for (const clang::Stmt* child : s->children())
    if (contains_statement_expression(child))
      return true;
  return false;
}

} // namespace

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
  if (const std::string name = callee->getQualifiedNameAsString(); name.rfind("s2p::", 0) == 0) {
    // The library's own functions (a nested s2p::forall in a task split into warps) are not
    // helpers: inlining them would report errors inside the library's header.
    error(call.getBeginLoc(),
          '\'' + name +
              "' is the s2p library's, not an intrinsic: a warp-split kernel (or a forall task "
              "split into warps) runs only intrinsics and helper functions; put element code in "
              "an S2P_INTRINSIC that takes the data as s2p::in / out / inout arguments");
    return;
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
// The state a call reaches outside its arguments: the callee's (cached), and what its
// arguments read, which the call's warp evaluates too.
std::vector<HiddenState> KernelExtractor::Impl::reached_state(const clang::CallExpr& call,
                                                              const clang::FunctionDecl& callee) {
  auto [cached, inserted] = hidden_state_.try_emplace(&callee);
  if (inserted)
    cached->second = find_hidden_state(callee);
  std::vector<HiddenState> reached = cached->second;
  for (const clang::Expr* arg : call.arguments())
    for (auto& state : find_hidden_state(*arg))
      reached.push_back(std::move(state));
  return reached;
}

// For --auto-warps: the mutable state a call reaches outside its arguments, by a key
// unique to the variable, so the pass puts every call reaching it on one warp (the rule the
// check above enforces for annotated calls).
void KernelExtractor::Impl::record_shared_state(const clang::CallExpr& call,
                                                const clang::FunctionDecl& callee,
                                                ir::CallSite& site) {
  for (const HiddenState& state : reached_state(call, callee)) {
    if (!state.variable)
      continue; // the tile index: a constant on the one tile a warp kernel runs on
    const ir::SourceLocation at = loc(state.variable->getLocation());
    std::string key = state.variable->getQualifiedNameAsString() + " (declared at " + at.file +
                      ":" + std::to_string(at.line) + ")";
    if (std::find(site.shared_state.begin(), site.shared_state.end(), key) ==
        site.shared_state.end())
      site.shared_state.push_back(std::move(key));
  }
}

bool KernelExtractor::Impl::intrinsic_state_is_visible(const clang::CallExpr& call,
                                                       const clang::FunctionDecl& callee,
                                                       int warp) {
  const std::vector<HiddenState> reached = reached_state(call, callee);
  bool ok = true;
  for (const HiddenState& state : reached) {
    if (!state.variable)
      continue; // the tile index: one tile runs a warp-split kernel, so it is a constant
    if (state.per_thread) {
      error(call.getBeginLoc(),
            "intrinsic '" + callee.getNameAsString() + "' " + state.what +
                "; a warp runs on whichever host thread the backend gives it, which changes "
                "between launches, so thread_local state does not carry over as in the "
                "sequential program: pass the state as an s2p::inout argument");
      report_note(ctx_, state.where, "here");
      ok = false;
      continue;
    }
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
      ok = false;
      if (failed_ && contains_statement_expression(arg))
        continue;
      // A default argument has no place in the call's text: the error is at the call, with
      // a note at the default it comes from.
      const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(arg);
      error(defaulted ? call.getBeginLoc() : arg->getBeginLoc(),
            "argument " + std::to_string(i + 1) + " of '" + site.callee + "' " +
                (defaulted ? "(its default argument) " : "") + "has side effects");
      if (defaulted)
        report_note(ctx_, defaulted->getExpr()->getBeginLoc(), "the default argument");
      ok = false;
    }
  }
  if (!ok || (warp >= 0 && !intrinsic_state_is_visible(call, callee, warp)))
    return;
  // Recorded with or without --auto-warps: a plan's warp override must not separate calls
  // that reach the same state either (pass_manager/plan_overrides.h).
  record_shared_state(call, callee, site);
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
  if (warp < 0 && !auto_warps_) {
    error(call.getBeginLoc(), "intrinsic call '" + site.callee + "' has no warp number");
    report_note(ctx_, call.getBeginLoc(),
                "add '#pragma s2p warp(N)' before this statement or an enclosing loop");
    return;
  }
  parent.children.push_back(std::move(node));
}

// The helper's body when it can be inlined into the kernel (not recursive, not variadic,
// returning void, defined here); checked against the body rules the first time it is met.
const clang::CompoundStmt* KernelExtractor::Impl::inlinable_body(const clang::CallExpr& call,
                                                                 const clang::FunctionDecl& helper) {
  const std::string name = helper.getNameAsString();
  for (const clang::FunctionDecl* active : helpers_) {
    if (active == &helper) {
      error(call.getBeginLoc(), "recursive call to '" + name + "' cannot be inlined into a kernel");
      for (auto it = helpers_.rbegin(); it != helpers_.rend(); ++it)
        report_note(ctx_, (*it)->getLocation(),
                    '\'' + (*it)->getNameAsString() + "' is being inlined here");
      return nullptr;
    }
  }
  if (helper.isVariadic()) {
    error(call.getBeginLoc(), "variadic helper '" + name + "' cannot be inlined into a kernel");
    return nullptr;
  }
  if (!helper.getReturnType()->isVoidType()) {
    error(call.getBeginLoc(),
          "helper '" + name + "' returns a value; a helper inlined into a kernel must return void");
    return nullptr;
  }
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(helper.getBody());
  if (!body) {
    error(call.getBeginLoc(), "helper '" + name + "' has no body to inline");
    return nullptr;
  }
  if (checked_helpers_.insert(&helper).second) {
    check_body_rules(*body);
    // An internal helper inlined everywhere would be unused in the generated file: keep a
    // reference to it so the compiler does not warn.
    if (!helper.isExternallyVisible() && !helper.isTemplateInstantiation()) {
      const std::string spelled =
          visible_from_kernel(&helper) ? helper.getNameAsString() : qualified_name(&helper);
      clang::PrintingPolicy policy(ctx_.getLangOpts());
      policy.FullyQualifiedName = true;
      kernel_.kept_references.emplace_back(
          "static_cast<" + ctx_.getPointerType(helper.getType()).getAsString(policy) + ">(&" +
              spelled + ")",
          "inlined below");
    }
  }
  return body;
}

// What parameter `param` of helper `name` means inside the helper, bound to `arg` in the
// caller's scope: a pool or tensor of the kernel (renamed), an integer expression, or the
// argument's text (a kernel-scope value without side effects).
std::optional<Binding>
KernelExtractor::Impl::bind_helper_parameter(const clang::ParmVarDecl& param,
                                             const clang::Expr& arg, const std::string& name) {
  const std::string kind = s2p_template_name(param.getType());
  const clang::ValueDecl* arg_decl = referenced_decl(&arg);
  const Binding* arg_binding = arg_decl ? lookup(arg_decl) : nullptr;
  const std::string which = "argument '" + param.getNameAsString() + "' of '" + name + "'";
  if (kind == "pool" || kind == "pool_tensor" || kind == "tensor_ref") {
    const Binding::Kind wanted = kind == "pool" ? Binding::Kind::Pool : Binding::Kind::Tensor;
    if (!arg_binding || arg_binding->kind != wanted) {
      error(arg.getBeginLoc(), "pass a " + kind + " declared in this kernel to parameter '" +
                                   param.getNameAsString() + "' of '" + name + "'");
      return std::nullopt;
    }
    Binding b = *arg_binding;
    b.kernel_scope = false; // renamed to the argument inside the helper
    return b;
  }
  if (param.getType()->isIntegralOrEnumerationType() ||
      (param.getType()->isReferenceType() &&
       param.getType().getNonReferenceType()->isIntegralOrEnumerationType())) {
    auto value = to_ir(&arg, which.c_str());
    if (!value)
      return std::nullopt;
    return Binding{Binding::Kind::Int, -1, std::move(*value), "", false};
  }
  if (arg.HasSideEffects(ctx_)) {
    if (!failed_ || !contains_statement_expression(&arg))
      error(arg.getBeginLoc(), which + " has side effects");
    return std::nullopt;
  }
  if (arg_binding && arg_binding->kind == Binding::Kind::Text)
    return *arg_binding;
  if (mentions_local_binding(&arg) || mentions(&arg, Binding::Kind::Tensor) ||
      mentions(&arg, Binding::Kind::Pool)) {
    error(arg.getBeginLoc(),
          which + " must be a kernel-scope value (pass integer indices as integer parameters)");
    return std::nullopt;
  }
  return Binding{Binding::Kind::Text, -1, {}, "(" + text(arg.getSourceRange()) + ")", false};
}

void KernelExtractor::Impl::inline_helper(const clang::CallExpr& call,
                                          const clang::FunctionDecl& helper,
                                          ir::ScheduleNode& parent, int warp) {
  const clang::CompoundStmt* body = inlinable_body(call, helper);
  if (!body)
    return;
  const std::string name = helper.getNameAsString();
  // Bind parameters to arguments, in the caller's scope (every argument is checked, so one
  // run reports every bad argument).
  std::unordered_map<const clang::ValueDecl*, Binding> params;
  bool ok = true;
  for (unsigned i = 0; i < helper.getNumParams() && i < call.getNumArgs(); ++i) {
    auto binding = bind_helper_parameter(*helper.getParamDecl(i), *call.getArg(i), name);
    if (binding)
      params[helper.getParamDecl(i)] = std::move(*binding);
    ok = ok && binding.has_value();
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

} // namespace s2p::frontend
