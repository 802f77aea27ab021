// The forall body rules: a forall body writes only its output, through its index, and its own
// locals, and computes nothing that depends on which tile runs it.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/forall_visitors.h"
#include "frontend/access_model.h"
#include "frontend/s2p_types.h"

#include <functional>
#include <set>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

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

namespace {

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

} // namespace

std::set<const clang::ParmVarDecl*> written_parameters(const clang::FunctionDecl& helper) {
  ParameterWrites writes;
  writes.TraverseStmt(helper.getBody());
  return std::move(writes.written);
}

namespace {

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
    // Only a capture this reports is done with: a plain value read first may still be written
    // later in the body (check_write).
    const auto reach = host_memory_reach(var.getType());
    if (!reach || !reported_.insert(&var).second)
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
      [this](const clang::ValueDecl* d) {
        return agile_fields_.contains(d) || tile_blocks_.contains(d);
      },
      [this](const clang::ValueDecl* d) { return shared_params_.contains(d); }, local_global,
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

} // namespace s2p::frontend
