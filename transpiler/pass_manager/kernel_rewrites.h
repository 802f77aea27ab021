// The kernel rewrites a tuning plan asks for (`--plan`), as passes: each takes the kernel as
// the rewrites before it left it and returns it rewritten, in one fixed order (weights before
// fusions, fusions before splits, whose step numbers count the fused kernel's steps, then
// variants and warp moves). A rewrite runs only when the options name the kernel.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <optional>
#include <string_view>
#include <vector>

namespace s2p::pass_manager {

enum class KernelRewritePass {
  PlanOverrides,      // resource-map weights and usable tiles (pass_manager/plan_overrides.h)
  FuseForalls,        // consecutive foralls fused into one (pass_manager/fuse_foralls.h)
  SplitForalls,       // a forall writing several fields dealt into several (split_foralls.h)
  SubstituteVariants, // calls run as another declared variant (substitute_variants.h)
  WarpOverrides,      // calls moved onto other warps (plan_overrides.h)
};
std::string_view name_of(KernelRewritePass pass);
std::string_view summary_of(KernelRewritePass pass);
const std::vector<KernelRewritePass>& all_kernel_rewrites();

// Whether `options` ask `pass` to rewrite the kernel named `kernel`.
bool rewrites(KernelRewritePass pass, const TranspileOptions& options, const std::string& kernel);

// `kernel` rewritten by `pass` as `options` ask; nothing after an error, reported into `diags`
// (at `declared_at` for the kernel as a whole).
std::optional<ir::Kernel> run_rewrite(KernelRewritePass pass, const ir::Kernel& kernel,
                                      const TranspileOptions& options,
                                      const ir::SourceLocation& declared_at, ir::Diagnostics& diags);

} // namespace s2p::pass_manager
