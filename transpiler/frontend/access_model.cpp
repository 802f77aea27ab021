#include "frontend/access_model.h"

#include "frontend/s2p_types.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <set>

namespace s2p::frontend {

namespace {

// Fields of a class (and its bases) that hold pointers or references, recursively.
// How a message names a member: a lambda's captures are unnamed fields of its closure class.
std::string member_name(const clang::FieldDecl& field) {
  if (!field.getName().empty())
    return "its member '" + field.getNameAsString() + "'";
  const auto* closure = llvm::dyn_cast<clang::CXXRecordDecl>(field.getParent());
  if (closure && closure->isLambda())
    return "a capture of the lambda";
  return "an unnamed member";
}

std::optional<std::string> indirection_in(const clang::CXXRecordDecl* record,
                                          std::set<const clang::CXXRecordDecl*>& seen) {
  if (!record || !record->hasDefinition() || !seen.insert(record).second)
    return std::nullopt;
  record = record->getDefinition();
  for (const clang::FieldDecl* field : record->fields()) {
    clang::QualType type = field->getType().getCanonicalType();
    while (const auto* array = llvm::dyn_cast<clang::ConstantArrayType>(type.getTypePtr()))
      type = array->getElementType().getCanonicalType();
    if (type->isPointerType() || type->isReferenceType() || type->isMemberPointerType())
      return member_name(*field) + " is a pointer or reference";
    if (field->isMutable())
      return member_name(*field) + " is mutable";
    if (auto inner = indirection_in(type->getAsCXXRecordDecl(), seen))
      return inner;
  }
  for (const clang::CXXBaseSpecifier& base : record->bases())
    if (auto inner = indirection_in(base.getType()->getAsCXXRecordDecl(), seen))
      return inner;
  return std::nullopt;
}

} // namespace

std::optional<std::string> plain_value_problem(clang::QualType type, const clang::ASTContext& ctx) {
  if (type->isReferenceType()) {
    const clang::QualType pointee = type.getNonReferenceType();
    if (!pointee.isConstQualified())
      return "a non-const reference, through which the call could write state seq2par cannot "
             "see";
    type = pointee;
  }
  type = type.getCanonicalType();
  if (type->isPointerType() || type->isMemberPointerType() || type->isArrayType())
    return "a pointer, through which the call could reach memory seq2par cannot see";
  if (type->isArithmeticType() || type->isEnumeralType())
    return std::nullopt;
  const clang::CXXRecordDecl* record = type->getAsCXXRecordDecl();
  if (!record)
    return "not a plain value";
  if (!record->hasDefinition())
    return "an incomplete class";
  if (!type.isTriviallyCopyableType(ctx))
    return "a class that is not trivially copyable (it may own or share memory)";
  std::set<const clang::CXXRecordDecl*> seen;
  if (auto inner = indirection_in(record, seen))
    return "a class through which the call could reach other memory: " + *inner;
  return std::nullopt;
}

namespace {

bool in_s2p_namespace(const clang::CXXRecordDecl& record) {
  for (const clang::DeclContext* ctx = record.getDeclContext(); ctx; ctx = ctx->getParent())
    if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(ctx);
        ns && ns->getName() == "s2p" && ns->getParent()->getRedeclContext()->isTranslationUnit())
      return true;
  return false;
}

} // namespace

std::optional<std::string> host_memory_reach(clang::QualType type) {
  clang::QualType value = type.getNonReferenceType().getCanonicalType();
  while (const auto* array = llvm::dyn_cast<clang::ArrayType>(value.getTypePtr()))
    value = array->getElementType().getCanonicalType();
  const clang::CXXRecordDecl* record = value->getAsCXXRecordDecl();
  if (record && in_s2p_namespace(*record))
    return std::nullopt;
  if (type->isReferenceType())
    return std::string("a reference");
  if (value->isPointerType() || value->isMemberPointerType())
    return std::string("a pointer");
  if (!record)
    return std::nullopt;
  std::set<const clang::CXXRecordDecl*> seen;
  if (auto inner = indirection_in(record, seen))
    return "a class that reaches other memory (" + *inner + ")";
  return std::nullopt;
}

namespace {

// C library functions (also as std::) whose result or effect depends on earlier calls: the tiles
// would call them in another order than the sequential loop, and at once.
std::optional<std::string> stateful_library_function(const clang::FunctionDecl& function) {
  if (!function.getIdentifier())
    return std::nullopt;
  const clang::DeclContext* context = function.getDeclContext()->getRedeclContext();
  if (!context->isTranslationUnit() && !function.isInStdNamespace())
    return std::nullopt;
  static const std::set<std::string> kRandom = {"rand", "srand", "random", "srandom", "drand48",
                                                "lrand48", "mrand48", "srand48", "strtok"};
  static const std::set<std::string> kStreams = {
      "printf", "vprintf",  "puts",  "putchar", "fprintf", "vfprintf", "fputs",  "fputc",
      "putc",   "fwrite",   "perror", "scanf",  "fscanf",  "getchar",  "fgets",  "fgetc",
      "getc",   "fread"};
  const std::string name = function.getName().str();
  if (kRandom.contains(name))
    return "calls '" + name + "', which keeps state between calls";
  if (kStreams.contains(name))
    return "calls '" + name + "', which reads or writes a stream in call order";
  return std::nullopt;
}

class HiddenStateFinder : public clang::RecursiveASTVisitor<HiddenStateFinder> {
public:
  explicit HiddenStateFinder(UnseenCalls unseen = UnseenCalls::Assumed) : unseen_(unseen) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()))
      check_variable(*var, ref->getLocation());
    if (const auto* callee = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
      const std::string name = callee->getQualifiedNameAsString();
      if ((name == "s2p::tile_index" || name == "s2p::chip_index") && tile_calls_.insert(name).second)
        found.push_back({nullptr, ref->getBeginLoc(),
                         "calls " + name + "(), so it computes something different on each tile"});
      check_call(*callee, ref->getBeginLoc());
      follow(*callee);
    }
    return true;
  }
  bool VisitDeclStmt(clang::DeclStmt* stmt) {
    for (const clang::Decl* decl : stmt->decls())
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
          var && var->isStaticLocal() && !is_constant(*var) && seen_.insert(var).second) {
        const bool per_thread = var->getTLSKind() != clang::VarDecl::TLS_None;
        found.push_back({var, var->getLocation(),
                         "declares " + std::string(per_thread ? "thread_local" : "static") +
                             " variable '" + var->getNameAsString() +
                             "', which keeps state between calls"});
        found.back().per_thread = per_thread;
      }
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construct) {
    if (construct->getConstructor()) {
      check_call(*construct->getConstructor(), construct->getBeginLoc());
      follow(*construct->getConstructor());
    }
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    if (call->getMethodDecl()) {
      check_virtual_call(*call);
      check_call(*call->getMethodDecl(), call->getExprLoc());
      follow(*call->getMethodDecl());
    }
    return true;
  }

  void follow(const clang::FunctionDecl& function) {
    const clang::FunctionDecl* definition = nullptr;
    if (!function.hasBody(definition) || !definition || !visited_.insert(definition).second)
      return;
    if (has_annotation(definition, "s2p.harmless_state") ||
        has_annotation(&function, "s2p.harmless_state"))
      return;
    // The standard library and seq2par's own headers keep no hidden state a kernel shares.
    if (in_system_header(*definition))
      return;
    TraverseStmt(definition->getBody());
  }

  std::vector<HiddenState> found;

private:
  // With UnseenCalls::Refused: a virtual call through a reference or pointer runs an override
  // seq2par does not look at (it follows the static callee).
  void check_virtual_call(const clang::CXXMemberCallExpr& call) {
    const clang::CXXMethodDecl& method = *call.getMethodDecl();
    const clang::Expr* object = call.getImplicitObjectArgument();
    if (unseen_ != UnseenCalls::Refused || !method.isVirtual() || !object ||
        method.getDevirtualizedMethod(object, false) != nullptr || in_system_header(method) ||
        has_annotation(&method, "s2p.harmless_state"))
      return;
    found.push_back({nullptr, call.getExprLoc(),
                     "makes a virtual call of '" + method.getQualifiedNameAsString() +
                         "' through a reference or pointer, whose override seq2par cannot see",
                     "; call it on an object of its own type, or mark the function "
                     "S2P_HARMLESS_STATE if no override keeps state that changes a result"});
  }

  // With UnseenCalls::Refused: a call whose effects the tiles cannot reproduce (see the header).
  void check_call(const clang::FunctionDecl& function, clang::SourceLocation where) {
    if (unseen_ != UnseenCalls::Refused || !checked_.insert(function.getCanonicalDecl()).second)
      return;
    if (auto library = stateful_library_function(function)) {
      found.push_back({nullptr, where, *library,
                       "; the tiles run the body at once and in another order than the "
                       "sequential loop, so they would compute something else"});
      return;
    }
    const clang::FunctionDecl* definition = nullptr;
    if (function.hasBody(definition) || function.isImplicit() || function.isDefaulted() ||
        function.isDeleted() || function.getBuiltinID() != 0 || in_system_header(function) ||
        has_annotation(&function, "s2p.harmless_state") || has_annotation(&function, "s2p.intrinsic"))
      return;
    found.push_back({nullptr, where,
                     "calls '" + function.getQualifiedNameAsString() +
                         "', whose body seq2par cannot see",
                     "; every tile runs the body at once, so state it keeps would race or change "
                     "with the order the tiles run in: define it where the kernel can see it, or "
                     "mark its declaration S2P_HARMLESS_STATE if no state it keeps changes a "
                     "result"});
  }

  // Const-qualification is not immutability: a `T* const` still writes what it points to, and
  // a `mutable` member of a const object still changes. Constant means no write can reach
  // state through the variable.
  static bool is_constant(const clang::VarDecl& var) {
    if (!var.getType().isConstQualified() && !var.isConstexpr())
      return false;
    return !mutable_reach(var.getType());
  }
  // Whether a write can reach memory through a value of `type`: a pointer to non-const, or a
  // `mutable` member, directly or behind pointers to const (a `const T*` still calls T's
  // const methods, which change its mutable members). `seen` stops at recursive classes.
  static bool mutable_reach(clang::QualType type) {
    std::set<const clang::CXXRecordDecl*> seen;
    return mutable_reach(type, seen);
  }
  static bool mutable_reach(clang::QualType type, std::set<const clang::CXXRecordDecl*>& seen) {
    type = type.getNonReferenceType().getCanonicalType();
    while (const auto* array = llvm::dyn_cast<clang::ArrayType>(type.getTypePtr()))
      type = array->getElementType().getCanonicalType();
    if (type->isFunctionPointerType())
      return false; // the target's state is followed instead (follow_function_pointers)
    if (type->isPointerType()) {
      const clang::QualType pointee = type->getPointeeType();
      return !pointee.isConstQualified() || mutable_reach(pointee, seen);
    }
    const clang::CXXRecordDecl* record = type->getAsCXXRecordDecl();
    if (!record || !record->hasDefinition() || !seen.insert(record->getDefinition()).second)
      return false;
    // The standard library's classes are deeply const through a const object (a const
    // std::vector's elements are const), whatever pointers they hold inside.
    if (record->getASTContext().getSourceManager().isInSystemHeader(record->getLocation()))
      return false;
    for (const clang::FieldDecl* field : record->getDefinition()->fields())
      if (field->isMutable() || mutable_reach(field->getType(), seen))
        return true;
    for (const clang::CXXBaseSpecifier& base : record->getDefinition()->bases())
      if (mutable_reach(base.getType(), seen))
        return true;
    return false;
  }
  // A constant that holds a function pointer (`constexpr auto step = &bump;`) calls what it
  // was initialized with: that function's state is reached as if it were called by name.
  void follow_function_pointers(const clang::VarDecl& var) {
    clang::QualType type = var.getType().getNonReferenceType().getCanonicalType();
    while (const auto* array = llvm::dyn_cast<clang::ArrayType>(type.getTypePtr()))
      type = array->getElementType().getCanonicalType();
    bool holds_function = type->isFunctionPointerType() || type->isMemberFunctionPointerType();
    if (const clang::CXXRecordDecl* record = type->getAsCXXRecordDecl();
        record && record->hasDefinition() && !in_system_header(*record))
      for (const clang::FieldDecl* field : record->getDefinition()->fields())
        holds_function = holds_function || field->getType()->isFunctionPointerType() ||
                         field->getType()->isMemberFunctionPointerType();
    if (!holds_function || !var.getInit() || !initializers_.insert(&var).second)
      return;
    TraverseStmt(const_cast<clang::Expr*>(var.getInit()));
  }
  bool in_system_header(const clang::Decl& decl) const {
    const auto& sm = decl.getASTContext().getSourceManager();
    return sm.isInSystemHeader(decl.getLocation()) || is_seq2par_header(decl);
  }
  static bool is_seq2par_header(const clang::Decl& decl) {
    const auto* ns =
        llvm::dyn_cast<clang::NamespaceDecl>(decl.getDeclContext()->getEnclosingNamespaceContext());
    while (ns && !ns->getParent()->isTranslationUnit())
      ns = llvm::dyn_cast<clang::NamespaceDecl>(ns->getParent());
    return ns && ns->getName() == "s2p";
  }
  // With UnseenCalls::Refused: the standard streams (std::cout, ...), library globals whose
  // every use reads or writes them in call order; a stream the body declares is its own.
  void check_standard_stream(const clang::VarDecl& var, clang::SourceLocation where) {
    static const std::set<std::string> kStreams = {"cout",  "cerr",  "clog",  "cin",
                                                   "wcout", "wcerr", "wclog", "wcin"};
    if (unseen_ != UnseenCalls::Refused || !var.hasGlobalStorage() || !var.getIdentifier() ||
        !var.isInStdNamespace() || !kStreams.contains(var.getName().str()) ||
        !seen_.insert(&var).second)
      return;
    found.push_back({nullptr, where,
                     "uses 'std::" + var.getName().str() +
                         "', a standard stream read or written in call order",
                     "; the tiles run the body at once and in another order than the "
                     "sequential loop, so they would compute something else"});
  }
  void check_variable(const clang::VarDecl& var, clang::SourceLocation where) {
    check_standard_stream(var, where);
    if (!var.hasGlobalStorage() || in_system_header(var))
      return;
    if (is_constant(var)) {
      follow_function_pointers(var);
      return;
    }
    if (!seen_.insert(&var).second)
      return;
    const bool per_thread = var.getTLSKind() != clang::VarDecl::TLS_None;
    const char* kind = per_thread ? "thread_local" : var.isStaticLocal() ? "static" : "global";
    std::string what = "uses " + std::string(kind) + " variable '" + var.getNameAsString() + "'";
    if (var.getType().isConstQualified() || var.isConstexpr())
      what += " (const, but it reaches memory that can change through it: a pointer to "
              "non-const or a mutable member)";
    found.push_back({&var, where, what});
    found.back().per_thread = per_thread;
  }

  UnseenCalls unseen_;
  std::set<const clang::FunctionDecl*> visited_;
  std::set<const clang::FunctionDecl*> checked_;
  std::set<const clang::VarDecl*> seen_;
  std::set<const clang::VarDecl*> initializers_;
  std::set<std::string> tile_calls_;
};

} // namespace

std::vector<HiddenState> find_hidden_state(const clang::FunctionDecl& function) {
  HiddenStateFinder finder;
  finder.follow(function);
  return finder.found;
}

std::vector<HiddenState> find_hidden_state(const clang::Stmt& body, UnseenCalls unseen) {
  HiddenStateFinder finder(unseen);
  finder.TraverseStmt(const_cast<clang::Stmt*>(&body));
  return finder.found;
}

} // namespace s2p::frontend
