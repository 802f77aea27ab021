// Recognizes seq2par's annotation types (`s2p::pool`, `s2p::in`, ...) and attributes in
// Clang's AST.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace s2p::frontend {

// The s2p class template `type` instantiates ("pool", "pool_tensor", "tensor_ref", "in",
// "out", "inout", "view"), looking through references, cv and sugar; empty otherwise.
std::string s2p_template_name(clang::QualType type);

// Integer template arguments of an s2p specialization (pool<T, N> -> {N}).
std::vector<std::int64_t> integer_template_args(clang::QualType type);
// The element type T of an s2p specialization, as written in C++.
std::string element_type_of(clang::QualType type, const clang::ASTContext& ctx);
// The first type argument of an s2p specialization (agile_field<N, T> -> T), if any.
std::optional<clang::QualType> type_template_arg(clang::QualType type);

// The string of `[[clang::annotate("<name>", ...)]]` on any redeclaration: whether it is
// present, and its first string argument if any.
bool has_annotation(const clang::Decl* decl, llvm::StringRef name);
std::optional<std::string> annotation_argument(const clang::Decl* decl, llvm::StringRef name);

inline bool is_kernel(const clang::FunctionDecl* f) {
  return has_annotation(f, "s2p.kernel");
}
inline bool is_intrinsic(const clang::FunctionDecl* f) {
  return has_annotation(f, "s2p.intrinsic");
}

} // namespace s2p::frontend
