// Host loops whose every statement calls a multi-tile kernel (`for (t...) { sweep(b, a);
// sweep(a, b); }`): on the mpi backend each call's results can stay on the ranks that
// computed them until the loop ends, because nothing between the calls reads a field on the
// host. The generated file opens a kernel scope around such a loop (the runtime's
// s2p::rt::kernel_scope, the one each multi-tile kernel opens around its own steps), so a call
// receives from other ranks only the rows its share reads, and every rank receives the whole
// results once, when the loop ends. On every other backend the scope does nothing.
#pragma once

#include "frontend/transpile_action.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <map>
#include <string>
#include <vector>

namespace s2p::frontend {

// A multi-tile kernel this file transpiles, as a host loop's scope names it.
struct KeepingKernel {
  std::string name;
  int tiles = 0;
};

// Whether the results of `kernel` (a multi-tile kernel, its S2P_SHARED structures `shared`)
// may stay on the ranks when the host calls it again: its declarations before the steps read
// no field's elements (they run on the host at every call), and it has no S2P_SHARED
// structure (their multicast reads the host's copy).
bool keeps_results_across_calls(const clang::FunctionDecl& kernel, bool has_shared);

// The outermost host loops of the main file's functions (`decls`) that contain only calls of
// `kernels` (keyed by canonical declaration) with fields and plain numbers as arguments, nested
// loops of the same kind, and headers that read plain numbers; each becomes a replacement that
// wraps the loop in a kernel scope.
std::vector<BodyReplacement>
host_loop_scopes(clang::ASTContext& ctx, const std::vector<clang::Decl*>& decls,
                 const std::map<const clang::FunctionDecl*, KeepingKernel>& kernels,
                 const std::string& display_name);

} // namespace s2p::frontend
