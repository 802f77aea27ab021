// Small questions about Clang expressions that several front-end steps ask.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The parameter of `call`'s direct callee that argument `a` binds: none for the object a member
// operator is called on (argument 0 of a lambda's call `at(r, c)` is `at`), for an argument past
// the parameters, or without a direct callee.
const clang::ParmVarDecl* parameter_of(const clang::CallExpr& call, unsigned a);

// The value of an integer constant expression whose value fits `max_bits` signed bits (at
// most 64); nothing for anything else (a __int128 constant beyond 64 bits included).
std::optional<std::int64_t> integer_constant(const clang::Expr* e, const clang::ASTContext& ctx,
                                             unsigned max_bits = 64);

// One step of an affine term with a constant: `e` (after strip) as `base + c`, `base - c` or
// `c + base`, c an integer constant expression. Index maps, guard bounds and kernel symbols
// all read `i[0] - 1`, `n + 2`, `1 + i[1]` with it, a step at a time. `value_of` maps an
// operand to the expression that gives its value (a helper's parameter to the argument it was
// called with); left empty, each operand is itself.
struct ConstantTerm {
  const clang::Expr* base;
  std::int64_t constant; // signed: -c for `base - c`
};
using ValueOf = std::function<const clang::Expr*(const clang::Expr*)>;
std::optional<ConstantTerm> constant_term(const clang::Expr& e, const clang::ASTContext& ctx,
                                          const ValueOf& value_of = {});
// `e` with every constant step taken off: its base and their sum (`i[0] + 2 - 1`: i[0], 1); `e`
// itself and 0 when it has none.
ConstantTerm constant_terms(const clang::Expr& e, const clang::ASTContext& ctx);
// `e` as i[axis] + offset for the index parameter `i` (a guard's bound, a body loop's), or
// nothing.
std::optional<std::pair<int, std::int64_t>> index_term(const clang::Expr* e,
                                                       const clang::ParmVarDecl& i,
                                                       const clang::ASTContext& ctx);

// The braced list an argument was written as ({2.0, 1.0}), through the constructor of the
// parameter type and initializer_list; null if it was not written as one.
const clang::InitListExpr* braced_list(const clang::Expr* e);

// The integers of a constant extent argument ({32, 16}), or nothing if any is not constant.
std::optional<std::vector<std::int64_t>> constant_extent(const clang::Expr* e,
                                                         const clang::ASTContext& ctx);

// Per axis, the constant split points of split_points' second argument ({{{16}, {16}}}),
// or nothing if the argument is not written out as constants.
std::optional<std::vector<std::vector<std::int64_t>>>
constant_splits(const clang::Expr* e, const clang::ASTContext& ctx);

// Whether `body` may change `var` (an assignment, ++/--, its address, a non-const reference or
// argument bound to it), `skip` (a loop's increment) left out.
bool may_write(const clang::Stmt& body, const clang::VarDecl& var,
               const clang::Stmt* skip = nullptr);

// The first call in `s` that could read a field's elements, or null: any call but s2p's view
// builders (resource maps, agile views, sections, extent()) and the accessors of a buffer's
// address or size, which no step changes; a lambda or statement expression counts as a call.
const clang::Expr* first_foreign_call(const clang::Stmt* s);

} // namespace s2p::frontend
