#include "frontend/variant_groups.h"

#include "frontend/access_model.h"
#include "frontend/kernel_extractor.h"
#include "frontend/s2p_types.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/Support/raw_ostream.h>

#include <map>

namespace s2p::frontend {

namespace {

// The call of s2p::detail::variants an S2P_VARIANTS static_assert holds, if `decl` is one.
const clang::CallExpr* variants_call(const clang::Decl* decl) {
  const auto* assertion = llvm::dyn_cast<clang::StaticAssertDecl>(decl);
  if (!assertion || !assertion->getAssertExpr())
    return nullptr;
  const auto* call = llvm::dyn_cast<clang::CallExpr>(assertion->getAssertExpr()->IgnoreParenImpCasts());
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  return callee && callee->getQualifiedNameAsString() == "s2p::detail::variants" ? call : nullptr;
}

void collect_calls(const clang::Decl* decl, std::vector<const clang::CallExpr*>& out) {
  if (const auto* call = variants_call(decl))
    out.push_back(call);
  if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(decl))
    for (const clang::Decl* inner : ns->decls())
      collect_calls(inner, out);
}

std::string type_text(clang::QualType type, const clang::ASTContext& ctx) {
  return type.getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
}

ir::VariantGroup::Member member_of(const clang::FunctionDecl& f, const clang::ASTContext& ctx) {
  ir::VariantGroup::Member member{f.getNameAsString(), annotation_argument(&f, "s2p.cost").value_or(""), {}};
  const clang::PrintingPolicy policy(ctx.getLangOpts());
  for (const clang::ParmVarDecl* param : f.parameters()) {
    std::string declaration;
    llvm::raw_string_ostream out(declaration);
    param->getType().print(out, policy, param->getName());
    member.parameters.push_back(out.str());
  }
  return member;
}

// A variant a plan substitutes gets the checks a direct call gets, but which warp it will run
// on is the plan's choice, unknown here: a substitute that reaches state outside its arguments
// (a static scratch buffer, a global counter) could share it with calls on other warps, so it
// is refused where the group names it. The first member is checked at the kernel's calls.
bool check_substitute_state(clang::ASTContext& ctx, const clang::FunctionDecl& variant,
                            clang::SourceLocation where) {
  for (const HiddenState& state : find_hidden_state(variant)) {
    if (!state.variable)
      continue; // the tile index is a constant on the one tile a warp kernel runs on
    report_error(ctx, where,
                 "variant '" + variant.getNameAsString() + "' " + state.what +
                     "; a plan may substitute it for a call on any warp, where warps running "
                     "at once would share that state: pass the state as an s2p::inout argument");
    report_note(ctx, state.where, "here");
    return false;
  }
  return true;
}

} // namespace

std::optional<std::vector<ir::VariantGroup>> find_variant_groups(clang::ASTContext& ctx,
                                                                 const std::vector<clang::Decl*>& decls,
                                                                 const std::string& display_file) {
  std::vector<const clang::CallExpr*> calls;
  for (const clang::Decl* decl : decls)
    collect_calls(decl, calls);
  const auto& sm = ctx.getSourceManager();
  std::vector<ir::VariantGroup> groups;
  std::map<const clang::FunctionDecl*, clang::SourceLocation> grouped; // -> its first group
  bool ok = true;
  for (const clang::CallExpr* call : calls) {
    ir::VariantGroup group;
    const clang::SourceLocation at = sm.getFileLoc(call->getBeginLoc());
    group.loc = {display_file, sm.getPresumedLineNumber(at), sm.getPresumedColumnNumber(at)};
    const clang::FunctionDecl* first = nullptr;
    for (const clang::Expr* arg : call->arguments()) {
      const clang::SourceLocation where = sm.getFileLoc(arg->getBeginLoc());
      const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(arg->IgnoreParenImpCasts());
      const auto* f = ref ? llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl()) : nullptr;
      if (!f || !is_intrinsic(f)) {
        report_error(ctx, where, "S2P_VARIANTS names interchangeable intrinsics, and this is not one (" +
                                     std::string(f ? "a function without S2P_INTRINSIC" : "not a function") +
                                     "): a plan substitutes a variant in the kernel's intrinsic calls");
        ok = false;
        continue;
      }
      if (first && f->getType().getCanonicalType() != first->getType().getCanonicalType()) {
        report_error(ctx, where, "variant '" + f->getNameAsString() + "' has type '" +
                                     type_text(f->getType(), ctx) + "' but '" + first->getNameAsString() +
                                     "' has '" + type_text(first->getType(), ctx) +
                                     "': variants are interchangeable only with one signature");
        ok = false;
        continue;
      }
      if (const auto [it, added] = grouped.try_emplace(f->getCanonicalDecl(), at); !added) {
        report_error(ctx, where, "'" + f->getNameAsString() + "' is already a variant in the S2P_VARIANTS at line " +
                                     std::to_string(sm.getPresumedLineNumber(it->second)) +
                                     " (a plan's choice would be ambiguous)");
        ok = false;
        continue;
      }
      if (first && !check_substitute_state(ctx, *f, where))
        ok = false;
      first = first ? first : f;
      group.members.push_back(member_of(*f, ctx));
    }
    groups.push_back(std::move(group));
  }
  if (!ok)
    return std::nullopt;
  return groups;
}

} // namespace s2p::frontend
