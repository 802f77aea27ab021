#include "frontend/s2p_types.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>

namespace s2p::frontend {

namespace {

const clang::ClassTemplateSpecializationDecl* s2p_specialization(clang::QualType type) {
  if (type.isNull())
    return nullptr;
  type = type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const auto* record = type->getAsCXXRecordDecl();
  const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
  if (!spec)
    return nullptr;
  const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(spec->getDeclContext()->getRedeclContext());
  if (!ns || ns->getName() != "s2p" || !ns->getParent()->getRedeclContext()->isTranslationUnit())
    return nullptr;
  return spec;
}

} // namespace

std::string s2p_template_name(clang::QualType type) {
  const auto* spec = s2p_specialization(type);
  return spec ? spec->getName().str() : std::string();
}

std::vector<std::int64_t> integer_template_args(clang::QualType type) {
  std::vector<std::int64_t> values;
  const auto* spec = s2p_specialization(type);
  if (!spec)
    return values;
  for (const auto& arg : spec->getTemplateArgs().asArray()) {
    if (arg.getKind() == clang::TemplateArgument::Integral)
      values.push_back(arg.getAsIntegral().getExtValue());
    if (arg.getKind() == clang::TemplateArgument::Pack)
      for (const auto& inner : arg.pack_elements())
        if (inner.getKind() == clang::TemplateArgument::Integral)
          values.push_back(inner.getAsIntegral().getExtValue());
  }
  return values;
}

std::string element_type_of(clang::QualType type, const clang::ASTContext& ctx) {
  const auto* spec = s2p_specialization(type);
  if (!spec || spec->getTemplateArgs().size() == 0)
    return "";
  const auto& first = spec->getTemplateArgs()[0];
  if (first.getKind() != clang::TemplateArgument::Type)
    return "";
  return first.getAsType().getAsString(ctx.getPrintingPolicy());
}

std::optional<clang::QualType> type_template_arg(clang::QualType type) {
  const auto* spec = s2p_specialization(type);
  if (!spec)
    return std::nullopt;
  for (const auto& arg : spec->getTemplateArgs().asArray())
    if (arg.getKind() == clang::TemplateArgument::Type)
      return arg.getAsType();
  return std::nullopt;
}

namespace {

const clang::AnnotateAttr* find_annotation(const clang::Decl* decl, llvm::StringRef name) {
  if (!decl)
    return nullptr;
  for (const clang::Decl* redecl : decl->redecls())
    for (const auto* attr : redecl->specific_attrs<clang::AnnotateAttr>())
      if (attr->getAnnotation() == name)
        return attr;
  return nullptr;
}

} // namespace

bool has_annotation(const clang::Decl* decl, llvm::StringRef name) {
  if (find_annotation(decl, name))
    return true;
  // Instantiations of an annotated function template carry the annotation on the pattern.
  if (const auto* f = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl))
    if (const auto* pattern = f->getTemplateInstantiationPattern())
      return find_annotation(pattern, name) != nullptr;
  return false;
}

std::optional<std::string> annotation_argument(const clang::Decl* decl, llvm::StringRef name) {
  const auto* attr = find_annotation(decl, name);
  if (!attr || attr->args_size() == 0)
    return std::nullopt;
  const clang::Expr* arg = (*attr->args_begin())->IgnoreParenImpCasts();
  if (const auto* text = llvm::dyn_cast<clang::StringLiteral>(arg))
    return text->getString().str();
  return std::nullopt;
}

} // namespace s2p::frontend
