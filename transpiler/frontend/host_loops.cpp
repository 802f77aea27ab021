#include "frontend/host_loops.h"

#include "frontend/ast_queries.h"
#include "frontend/s2p_types.h"
#include "ir/quoted.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <functional>
#include <optional>

namespace s2p::frontend {
namespace {

// Whether `s` reads memory through a pointer, a built-in subscript or a data member: what
// could be a field's element that another rank still holds. Calls are first_foreign_call's
// question.
bool reads_through_memory(const clang::Stmt* s) {
  if (!s)
    return false;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(s);
      unary && unary->getOpcode() == clang::UO_Deref)
    return true;
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(s);
      member && !llvm::isa<clang::CXXMethodDecl>(member->getMemberDecl()))
    return true;
  if (llvm::isa<clang::ArraySubscriptExpr>(s))
    return true;
  return std::any_of(s->child_begin(), s->child_end(),
                     [](const clang::Stmt* child) { return reads_through_memory(child); });
}

bool plain_number_type(clang::QualType type) {
  return !type->isReferenceType() && !type.isVolatileQualified() &&
         (type->isArithmeticType() || type->isEnumeralType());
}

// Whether every use of `var` in `body` reads its value or assigns it (no address taken, no
// reference bound): then no field can view it, and a kernel cannot change it behind the loop.
bool only_read_or_assigned(const clang::Stmt& body, const clang::VarDecl& var) {
  const auto use_is_plain = [&](const clang::Stmt& parent, const clang::Stmt* child) {
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(&parent))
      return cast->getCastKind() == clang::CK_LValueToRValue;
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(&parent))
      return unary->isIncrementDecrementOp();
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(&parent))
      return binary->isAssignmentOp() && binary->getLHS()->IgnoreParens() == child;
    return false; // a reference bound, an address taken, a capture: the variable escapes
  };
  bool plain = true;
  const std::function<void(const clang::Stmt&)> walk = [&](const clang::Stmt& parent) {
    for (const clang::Stmt* child : parent.children()) {
      if (!child)
        continue;
      if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(child);
          ref && ref->getDecl() == &var && !use_is_plain(parent, child))
        plain = false;
      walk(*child);
    }
  };
  walk(body);
  return plain;
}

class LoopScan {
public:
  LoopScan(const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels,
           const clang::Stmt& function_body)
      : kernels_(kernels), function_body_(function_body) {}

  // The kernel calls in `loop` if it qualifies (all of its statements are such calls or such
  // loops), else an empty list.
  std::vector<const clang::CallExpr*> calls_in(const clang::Stmt& loop) {
    std::vector<const clang::CallExpr*> calls;
    if (!collect(loop, calls))
      calls.clear();
    return calls;
  }

private:
  bool collect(const clang::Stmt& s, std::vector<const clang::CallExpr*>& calls) {
    if (llvm::isa<clang::NullStmt>(s))
      return true;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(&s))
      return std::all_of(block->body_begin(), block->body_end(),
                         [&](const clang::Stmt* child) { return collect(*child, calls); });
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(&s))
      return header_reads_numbers(loop->getInit()) && header_reads_numbers(loop->getCond()) &&
             header_reads_numbers(loop->getInc()) && !loop->getConditionVariable() &&
             collect(*loop->getBody(), calls);
    if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(&s))
      return header_reads_numbers(loop->getCond()) && !loop->getConditionVariable() &&
             collect(*loop->getBody(), calls);
    if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(&s))
      return header_reads_numbers(loop->getCond()) && collect(*loop->getBody(), calls);
    const auto* e = llvm::dyn_cast<clang::Expr>(&s);
    if (e && counter_update(*e->IgnoreImplicit()))
      return true;
    const auto* call = e ? llvm::dyn_cast<clang::CallExpr>(e->IgnoreImplicit()) : nullptr;
    if (!call || !keeping_call(*call))
      return false;
    calls.push_back(call);
    return true;
  }

  // `++round`, `k += 2`: a number the loop counts with, not a field.
  bool counter_update(const clang::Expr& e) {
    const clang::Expr* target = nullptr;
    const clang::Expr* value = nullptr;
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(&e); unary && unary->isIncrementDecrementOp())
      target = unary->getSubExpr();
    else if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(&e); binary && binary->isAssignmentOp())
      target = binary->getLHS(), value = binary->getRHS();
    return target && llvm::isa<clang::DeclRefExpr>(target->IgnoreParens()) &&
           header_reads_numbers(target) && header_reads_numbers(value);
  }

  // A loop header (or a number argument) that reads only numbers no field can view: constants,
  // and variables whose address is never taken; no call, no memory read.
  bool header_reads_numbers(const clang::Stmt* s) {
    if (!s)
      return true;
    if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(s))
      return std::all_of(decls->decl_begin(), decls->decl_end(), [&](const clang::Decl* d) {
        const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
        return var && plain_number_type(var->getType()) && !var->isStaticLocal() &&
               stays_private(*var) && header_reads_numbers(var->getInit());
      });
    if (first_foreign_call(s) || reads_through_memory(s))
      return false;
    return names_plain_numbers(*s);
  }

  bool names_plain_numbers(const clang::Stmt& s) {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(&s)) {
      if (llvm::isa<clang::EnumConstantDecl>(ref->getDecl()))
        return true;
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (!var || !plain_number_type(var->getType()))
        return false;
      if (var->getType().isConstQualified() || var->isConstexpr())
        return true; // a field over it would be read-only: no kernel writes it
      return var->hasLocalStorage() && stays_private(*var);
    }
    return std::all_of(s.child_begin(), s.child_end(), [&](const clang::Stmt* child) {
      return !child || names_plain_numbers(*child);
    });
  }

  bool keeping_call(const clang::CallExpr& call) {
    if (llvm::isa<clang::CXXOperatorCallExpr>(call) || llvm::isa<clang::CXXMemberCallExpr>(call))
      return false;
    const clang::FunctionDecl* callee = call.getDirectCallee();
    if (!callee || !kernels_.contains(callee->getCanonicalDecl()) ||
        call.getNumArgs() != callee->getNumParams())
      return false;
    for (unsigned k = 0; k < call.getNumArgs(); ++k)
      if (!plain_argument(call.getArg(k), callee->getParamDecl(k)->getType()))
        return false;
    return true;
  }

  // A field or a view of one built by s2p's view functions (passing it reads no element), or
  // a number.
  bool plain_argument(const clang::Expr* arg, clang::QualType param) {
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(arg))
      arg = defaulted->getExpr();
    if (s2p_template_name(param) == "field")
      return !first_foreign_call(arg) && !reads_through_memory(arg);
    const clang::QualType value = param.getNonReferenceType();
    if (param->isReferenceType() && !value.isConstQualified())
      return false;
    return plain_number_type(value.getUnqualifiedType()) && header_reads_numbers(arg);
  }

  // only_read_or_assigned over the function, once per variable (each walks the whole body).
  bool stays_private(const clang::VarDecl& var) {
    const auto [known, fresh] = private_.try_emplace(&var, false);
    if (fresh)
      known->second = only_read_or_assigned(function_body_, var);
    return known->second;
  }

  const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels_;
  const clang::Stmt& function_body_;
  std::map<const clang::VarDecl*, bool> private_;
};

// The file offsets [begin, end) of `loop`, the `;` that ends a body written without braces
// included; nothing if the loop comes from a macro.
std::optional<std::pair<unsigned, unsigned>> loop_extent(const clang::Stmt& loop,
                                                        const clang::ASTContext& ctx) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  const clang::SourceLocation begin = loop.getBeginLoc(), last = loop.getEndLoc();
  if (begin.isMacroID() || last.isMacroID() || !sm.isInMainFile(begin))
    return std::nullopt;
  const clang::SourceLocation after =
      clang::Lexer::getLocForEndOfToken(last, 0, sm, ctx.getLangOpts());
  unsigned end = sm.getFileOffset(after);
  const llvm::StringRef text = sm.getBufferData(sm.getMainFileID());
  const bool braced_end = text[end - 1] == '}';
  if (!braced_end) {
    std::optional<clang::Token> next = clang::Lexer::findNextToken(last, sm, ctx.getLangOpts());
    if (!next || !next->is(clang::tok::semi) || next->getLocation().isMacroID())
      return std::nullopt;
    end = sm.getFileOffset(next->getLocation()) + 1;
  }
  return std::make_pair(sm.getFileOffset(begin), end);
}

std::string scope_text(const KeepingKernel& first, int number, const std::string& display_name,
                       llvm::StringRef loop_text) {
  const std::string info = "s2p_host_loop_" + std::to_string(number);
  return "{ // seq2par: a loop of multi-tile kernel calls: on mpi their results\n"
         "// stay on the ranks until it ends (each call fetches what it reads).\n"
         "static const s2p::rt::tile_kernel_info " +
         info + " = {" + ir::quoted(first.name) + ", " + ir::quoted(display_name) + ", " +
         std::to_string(first.tiles) + "};\nconst s2p::rt::kernel_scope " + info + "_scope(" +
         info + ");\n" + loop_text.str() + "\n}";
}

class LoopFinder {
public:
  LoopFinder(clang::ASTContext& ctx, const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels,
             const std::string& display_name)
      : ctx_(ctx), kernels_(kernels), display_name_(display_name) {}

  void function(const clang::FunctionDecl& f) {
    if (!f.hasBody() || is_kernel(&f) || f.isDependentContext())
      return;
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&f);
        method && method->getParent()->isLambda())
      return; // its loops are found in the function that holds the lambda
    LoopScan scan(kernels_, *f.getBody());
    find(*f.getBody(), scan);
  }

  std::vector<BodyReplacement> take() { return std::move(found_); }

private:
  void find(const clang::Stmt& s, LoopScan& scan) {
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s)) {
      const std::vector<const clang::CallExpr*> calls = scan.calls_in(s);
      if (!calls.empty() && wrap(s, *calls.front()))
        return;
    }
    for (const clang::Stmt* child : s.children())
      if (child)
        find(*child, scan);
  }

  bool wrap(const clang::Stmt& loop, const clang::CallExpr& first_call) {
    const auto extent = loop_extent(loop, ctx_);
    if (!extent)
      return false;
    const llvm::StringRef text = ctx_.getSourceManager().getBufferData(
        ctx_.getSourceManager().getMainFileID());
    const KeepingKernel& first =
        kernels_.at(first_call.getDirectCallee()->getCanonicalDecl());
    found_.push_back({extent->first, extent->second,
                      scope_text(first, static_cast<int>(found_.size()) + 1, display_name_,
                                 text.slice(extent->first, extent->second))});
    return true;
  }

  clang::ASTContext& ctx_;
  const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels_;
  const std::string& display_name_;
  std::vector<BodyReplacement> found_;
};

} // namespace

bool keeps_results_across_calls(const clang::FunctionDecl& kernel, bool has_shared) {
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel.getBody());
  if (!body || has_shared)
    return false;
  for (const clang::Stmt* stmt : body->body()) {
    const auto* decls = llvm::dyn_cast<clang::DeclStmt>(stmt);
    if (!decls)
      continue;
    for (const clang::Decl* d : decls->decls()) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
      if (var && !var->isConstexpr() &&
          (first_foreign_call(var->getInit()) || reads_through_memory(var->getInit())))
        return false;
    }
  }
  return true;
}

std::vector<BodyReplacement>
host_loop_scopes(clang::ASTContext& ctx, const std::vector<clang::Decl*>& decls,
                 const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels,
                 const std::string& display_name) {
  if (kernels.empty())
    return {};
  struct Functions : clang::RecursiveASTVisitor<Functions> {
    std::vector<const clang::FunctionDecl*> found;
    bool VisitFunctionDecl(clang::FunctionDecl* f) {
      if (f->isThisDeclarationADefinition())
        found.push_back(f);
      return true;
    }
  } functions;
  for (clang::Decl* decl : decls)
    functions.TraverseDecl(decl);
  LoopFinder finder(ctx, kernels, display_name);
  for (const clang::FunctionDecl* f : functions.found)
    finder.function(*f);
  return finder.take();
}

} // namespace s2p::frontend
