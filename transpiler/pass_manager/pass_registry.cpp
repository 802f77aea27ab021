#include "pass_manager/pass_registry.h"

#include "passes/warp_split.h"
#include "pass_manager/kernel_rewrites.h"

#include <algorithm>

namespace s2p::pass_manager {

std::string_view name_of(PassUnit unit) {
  switch (unit) {
  case PassUnit::Kernel: return "kernel";
  case PassUnit::WarpPlan: return "warp-plan";
  case PassUnit::TileKernel: return "tile-kernel";
  }
  return "?";
}

namespace {

std::string_view warp_split_summary(passes::WarpSplitPass pass) {
  using passes::WarpSplitPass;
  switch (pass) {
  case WarpSplitPass::CheckTileMemory: return "a warp kernel's pools fit one tile (--tile-sram)";
  case WarpSplitPass::BuildCdfg:
    return "regions of the schedule tree, each expanded one with its control and data flow graph";
  case WarpSplitPass::AddResourceEdges: return "the CDRFG: buffer reuse as resource edges";
  case WarpSplitPass::RemoveRedundantEdges:
    return "edges that other paths imply removed (skipped with --keep-redundant)";
  case WarpSplitPass::AllocateChannels:
    return "a channel per remaining edge, numbered region after region; a loop with a run-time "
           "trip count planned whole (channels and warps)";
  case WarpSplitPass::SplitWarps: return "each warp's program of calls, waits and signals";
  case WarpSplitPass::VerifySync:
    return "the split checked for races and deadlock (skipped with --no-verify)";
  }
  return "";
}

std::vector<PassInfo> make_registry() {
  std::vector<PassInfo> passes;
  for (const KernelRewritePass rewrite : all_kernel_rewrites())
    passes.push_back({name_of(rewrite), PassUnit::Kernel, summary_of(rewrite)});
  passes.push_back({"assign-warps", PassUnit::Kernel,
                    "--auto-warps: a warp for each intrinsic call without an annotation"});
  passes.push_back({"kernel-versions", PassUnit::Kernel,
                    "a version of a warp kernel per combination of its parameter conditions, "
                    "each planned on its own (dumps under <kernel>.v<k>)"});
  for (const passes::WarpSplitPass pass : passes::all_warp_split_passes())
    passes.push_back({passes::name_of(pass), PassUnit::WarpPlan, warp_split_summary(pass)});
  passes.push_back({"given-extents", PassUnit::TileKernel,
                    "--extents: a multi-tile kernel planned for the extents given"});
  passes.push_back({"split-tasks-into-warps", PassUnit::TileKernel,
                    "forall tasks with warp annotations through the warp-split passes (their "
                    "dumps under the task's name)"});
  passes.push_back({"plan-tile-schedules", PassUnit::TileKernel,
                    "each step's schedule template: owner-copy exchanges, collective rings"});
  return passes;
}

} // namespace

const std::vector<PassInfo>& registered_passes() {
  static const std::vector<PassInfo> passes = make_registry();
  return passes;
}

std::optional<PassInfo> find_pass(std::string_view name) {
  const auto& passes = registered_passes();
  const auto it = std::find_if(passes.begin(), passes.end(),
                               [&](const PassInfo& p) { return p.name == name; });
  if (it == passes.end())
    return std::nullopt;
  return *it;
}

} // namespace s2p::pass_manager
