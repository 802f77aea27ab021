// S2P_VARIANTS(f, g, ...) in the input file: groups of interchangeable intrinsics a tuning plan
// may choose among (pass_manager/substitute_variants.h). The macro expands to
// `static_assert(s2p::detail::variants(f, g, ...), ...)`, which this finds at namespace scope.
// Each name must be an intrinsic (S2P_INTRINSIC) with the first one's signature, and in one
// group only; anything else is an error at the name, through Clang's diagnostics.
#pragma once

#include "ir/kernel.h"

#include <clang/AST/ASTContext.h>

#include <optional>
#include <string>
#include <vector>

namespace s2p::frontend {

// The groups declared by `decls` (the main file's top-level declarations, namespaces entered),
// or nothing after an error was reported. `display_file` names the file in the groups' locations.
std::optional<std::vector<ir::VariantGroup>> find_variant_groups(clang::ASTContext& ctx,
                                                                 const std::vector<clang::Decl*>& decls,
                                                                 const std::string& display_file);

} // namespace s2p::frontend
