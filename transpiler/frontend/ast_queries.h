// Small questions about Clang expressions that several front-end steps ask.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <string>

namespace s2p::frontend {

// `e` without parentheses, implicit casts, temporaries and single-argument conversions.
const clang::Expr* strip(const clang::Expr* e);

// `e` before the implicit integer conversions its context applies.
const clang::Expr* without_integer_conversion(const clang::Expr* e);

// `::ns::name` for a namespace-scope declaration (anonymous and inline namespaces
// skipped): how generated code names it from the kernel's scope.
std::string qualified_name(const clang::NamedDecl* decl);

// The declaration `e` names, if it is (after strip) a plain reference.
const clang::ValueDecl* referenced_decl(const clang::Expr* e);

} // namespace s2p::frontend
