// The constructs a kernel (or a helper it inlines) may not contain, as a declarative
// table of AST matchers, each with the message a user sees. The kernel extractor runs the
// table over every body it walks, so each construct is reported once, where it is.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

#include <functional>
#include <string>

namespace s2p::frontend {

using ReportFn = std::function<void(clang::SourceLocation, const std::string&)>;

// Reports every unsupported construct inside `body`; returns how many it found.
int report_unsupported_constructs(const clang::Stmt& body, clang::ASTContext& ctx,
                                  const ReportFn& report);

} // namespace s2p::frontend
