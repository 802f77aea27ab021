#include "pass_manager/kernel_rewrites.h"

#include "pass_manager/fuse_foralls.h"
#include "pass_manager/plan_overrides.h"
#include "pass_manager/split_foralls.h"
#include "pass_manager/substitute_variants.h"

namespace s2p::pass_manager {

std::string_view name_of(KernelRewritePass pass) {
  switch (pass) {
  case KernelRewritePass::PlanOverrides: return "plan-overrides";
  case KernelRewritePass::FuseForalls: return "fuse-foralls";
  case KernelRewritePass::SplitForalls: return "split-foralls";
  case KernelRewritePass::SubstituteVariants: return "substitute-variants";
  case KernelRewritePass::WarpOverrides: return "warp-overrides";
  }
  return "?";
}

std::string_view summary_of(KernelRewritePass pass) {
  switch (pass) {
  case KernelRewritePass::PlanOverrides: return "--plan: resource-map weights and usable tiles";
  case KernelRewritePass::FuseForalls: return "--plan: consecutive foralls fused into one";
  case KernelRewritePass::SplitForalls:
    return "--plan: a forall that writes several fields dealt into consecutive foralls";
  case KernelRewritePass::SubstituteVariants:
    return "--plan: an intrinsic's calls run as another of its declared variants";
  case KernelRewritePass::WarpOverrides: return "--plan: intrinsic calls moved onto other warps";
  }
  return "";
}

const std::vector<KernelRewritePass>& all_kernel_rewrites() {
  static const std::vector<KernelRewritePass> passes = {
      KernelRewritePass::PlanOverrides, KernelRewritePass::FuseForalls,
      KernelRewritePass::SplitForalls, KernelRewritePass::SubstituteVariants,
      KernelRewritePass::WarpOverrides};
  return passes;
}

namespace {

// The entries of a per-kernel option map for `kernel`, or null.
template <class Map>
const typename Map::mapped_type* entries(const Map& map, const std::string& kernel) {
  const auto it = map.find(kernel);
  return it == map.end() ? nullptr : &it->second;
}

} // namespace

bool rewrites(KernelRewritePass pass, const TranspileOptions& options, const std::string& kernel) {
  switch (pass) {
  case KernelRewritePass::PlanOverrides: return entries(options.decisions.map_weights, kernel) != nullptr;
  case KernelRewritePass::FuseForalls: return entries(options.decisions.fusions, kernel) != nullptr;
  case KernelRewritePass::SplitForalls: return entries(options.decisions.splits, kernel) != nullptr;
  case KernelRewritePass::SubstituteVariants: return entries(options.decisions.variants, kernel) != nullptr;
  case KernelRewritePass::WarpOverrides: return entries(options.decisions.warps, kernel) != nullptr;
  }
  return false;
}

std::optional<ir::Kernel> run_rewrite(KernelRewritePass pass, const ir::Kernel& kernel,
                                      const TranspileOptions& options,
                                      const ir::SourceLocation& declared_at, ir::Diagnostics& diags) {
  const std::string& name = kernel.name;
  switch (pass) {
  case KernelRewritePass::PlanOverrides:
    return apply_plan_overrides(kernel, *entries(options.decisions.map_weights, name), declared_at, diags);
  case KernelRewritePass::FuseForalls:
    return apply_fusions(kernel, *entries(options.decisions.fusions, name), declared_at, diags);
  case KernelRewritePass::SplitForalls: {
    // A split's step numbers count the kernel as written; the fusions say how they moved.
    const auto* fused = entries(options.decisions.fusions, name);
    return apply_splits(kernel, *entries(options.decisions.splits, name),
                        fused ? *fused : std::vector<StepFusion>{}, declared_at, diags);
  }
  case KernelRewritePass::SubstituteVariants:
    return substitute_variants(kernel, *entries(options.decisions.variants, name), declared_at, diags);
  case KernelRewritePass::WarpOverrides:
    return apply_warp_overrides(kernel, *entries(options.decisions.warps, name), declared_at, diags);
  }
  return std::nullopt;
}

} // namespace s2p::pass_manager
