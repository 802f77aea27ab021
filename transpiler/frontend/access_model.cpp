#include "frontend/access_model.h"

#include "frontend/s2p_types.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <set>

namespace s2p::frontend {

namespace {

// Fields of a class (and its bases) that hold pointers or references, recursively.
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
      return "its member '" + field->getNameAsString() + "' is a pointer or reference";
    if (field->isMutable())
      return "its member '" + field->getNameAsString() + "' is mutable";
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

class HiddenStateFinder : public clang::RecursiveASTVisitor<HiddenStateFinder> {
public:
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()))
      check_variable(*var, ref->getLocation());
    if (const auto* callee = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
      const std::string name = callee->getQualifiedNameAsString();
      if ((name == "s2p::tile_index" || name == "s2p::chip_index") && tile_calls_.insert(name).second)
        found.push_back({nullptr, ref->getBeginLoc(),
                         "calls " + name + "(), so it computes something different on each tile"});
      follow(*callee);
    }
    return true;
  }
  bool VisitDeclStmt(clang::DeclStmt* stmt) {
    for (const clang::Decl* decl : stmt->decls())
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
          var && var->isStaticLocal() && !is_constant(*var) && seen_.insert(var).second)
        found.push_back({var, var->getLocation(),
                         "declares static variable '" + var->getNameAsString() +
                             "', which keeps state between calls"});
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construct) {
    if (construct->getConstructor())
      follow(*construct->getConstructor());
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* call) {
    if (call->getMethodDecl())
      follow(*call->getMethodDecl());
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
  static bool is_constant(const clang::VarDecl& var) {
    return var.getType().isConstQualified() || var.isConstexpr();
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
  void check_variable(const clang::VarDecl& var, clang::SourceLocation where) {
    if (!var.hasGlobalStorage() || is_constant(var) || in_system_header(var) ||
        !seen_.insert(&var).second)
      return;
    const char* kind = var.isStaticLocal() ? "static" : "global";
    found.push_back({&var, where, "uses " + std::string(kind) + " variable '" +
                                      var.getNameAsString() + "'"});
  }

  std::set<const clang::FunctionDecl*> visited_;
  std::set<const clang::VarDecl*> seen_;
  std::set<std::string> tile_calls_;
};

} // namespace

std::vector<HiddenState> find_hidden_state(const clang::FunctionDecl& function) {
  HiddenStateFinder finder;
  finder.follow(function);
  return finder.found;
}

std::vector<HiddenState> find_hidden_state(const clang::Stmt& body) {
  HiddenStateFinder finder;
  finder.TraverseStmt(const_cast<clang::Stmt*>(&body));
  return finder.found;
}

} // namespace s2p::frontend
