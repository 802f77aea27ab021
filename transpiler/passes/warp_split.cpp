#include "passes/warp_split.h"

#include "passes/allocate_channels.h"
#include "passes/build_cdrfg.h"
#include "passes/check_tile_memory.h"
#include "passes/plan_symbolic_loop.h"
#include "passes/remove_redundant_edges.h"
#include "passes/split_warps.h"
#include "passes/verify_ir.h"
#include "passes/verify_sync.h"

#include <algorithm>
#include <set>

namespace s2p::passes {

using namespace s2p::ir;

int WarpSplit::call_count() const {
  int calls = 0;
  for (const auto& region : regions)
    calls += region.kind == Region::Kind::Expanded ? static_cast<int>(region.graph.nodes.size())
                                                   : region.loop.body_size;
  return calls;
}

int WarpSplit::constant_loops_kept() const {
  return static_cast<int>(std::count_if(regions.begin(), regions.end(), [](const Region& r) {
    return r.kind == Region::Kind::SymbolicLoop && r.loop.constant_trips.has_value();
  }));
}

std::string_view name_of(WarpSplitPass pass) {
  switch (pass) {
  case WarpSplitPass::CheckTileMemory: return "check-tile-memory";
  case WarpSplitPass::BuildCdfg: return "build-cdfg";
  case WarpSplitPass::AddResourceEdges: return "add-resource-edges";
  case WarpSplitPass::RemoveRedundantEdges: return "remove-redundant-edges";
  case WarpSplitPass::AllocateChannels: return "allocate-channels";
  case WarpSplitPass::SplitWarps: return "split-warps";
  case WarpSplitPass::VerifySync: return "verify-sync";
  }
  return "?";
}

const std::vector<WarpSplitPass>& all_warp_split_passes() {
  static const std::vector<WarpSplitPass> passes = {
      WarpSplitPass::CheckTileMemory,      WarpSplitPass::BuildCdfg,
      WarpSplitPass::AddResourceEdges,     WarpSplitPass::RemoveRedundantEdges,
      WarpSplitPass::AllocateChannels,     WarpSplitPass::SplitWarps,
      WarpSplitPass::VerifySync};
  return passes;
}

namespace {

// Channels of an expanded region are numbered from 1 by allocate_channels; move them after
// the channels of the regions before it.
void offset_channels(Region& region, int offset) {
  for (auto& e : region.graph.edges)
    if (e.channel > 0)
      e.channel += offset;
}

// Every region's channels, in region order: an expanded region's from allocate_channels,
// after those of the regions before it; a symbolic loop's channels and warps planned together.
bool allocate_all_channels(WarpSplit& plan, Diagnostics& diags) {
  for (auto& region : plan.regions) {
    if (region.kind != Region::Kind::Expanded) {
      if (!plan_symbolic_loop(region, plan.channel_count + 1, plan.channel_kinds, diags))
        return false;
      plan.channel_count = static_cast<int>(plan.channel_kinds.size());
      continue;
    }
    Graph& graph = region.graph;
    allocate_channels(graph);
    offset_channels(region, plan.channel_count);
    plan.channel_kinds.insert(plan.channel_kinds.end(),
                              static_cast<std::size_t>(graph.data_channel_count), ChannelKind::Data);
    plan.channel_kinds.insert(plan.channel_kinds.end(),
                              static_cast<std::size_t>(graph.channel_count - graph.data_channel_count),
                              ChannelKind::Resource);
    plan.channel_count += graph.channel_count;
  }
  return true;
}

bool verify_all(const WarpSplit& plan, const Kernel& kernel, Diagnostics& diags) {
  for (const auto& region : plan.regions) {
    if (region.kind != Region::Kind::Expanded)
      continue;
    const auto problems = verify_sync(region.graph, region.warps);
    if (!problems.empty()) {
      diags.error(kernel.loc, "internal error: the warp split of '" + kernel.name +
                                  "' is unsound (" + problems.front() + "); please report this");
      return false;
    }
  }
  return true;
}

} // namespace

WarpSplit run_warp_split(const Kernel& kernel, const WarpSplitOptions& options, Diagnostics& diags,
                       const AfterWarpSplitPass& after) {
  WarpSplit plan;
  // After each pass: the structural verifier (unless --no-verify), then the caller's hook.
  const auto done = [&](WarpSplitPass pass) {
    if (options.verify)
      if (const auto problems = verify_ir(plan, pass); !problems.empty()) {
        diags.error(kernel.loc, "internal error: after " + std::string(name_of(pass)) +
                                    ", the warp-split IR of '" + kernel.name + "' is malformed (" +
                                    problems.front() + "); please report this");
        return false;
      }
    if (after)
      after(pass, plan);
    return true;
  };
  if (!check_tile_memory(kernel, options.tile_sram_bytes, diags) ||
      !done(WarpSplitPass::CheckTileMemory))
    return plan;
  CdfgRegions built = build_regions(kernel, diags, options.cdfg);
  plan.regions = std::move(built.regions);
  plan.call_limit_reached = built.call_limit_reached;
  if (diags.has_errors() || !done(WarpSplitPass::BuildCdfg))
    return plan;
  for (auto& region : plan.regions)
    add_resource_edges(region.graph);
  if (!done(WarpSplitPass::AddResourceEdges))
    return plan;
  if (!options.keep_redundant) {
    for (auto& region : plan.regions)
      plan.redundant_edges += remove_redundant_edges(region.graph);
    if (!done(WarpSplitPass::RemoveRedundantEdges))
      return plan;
  }
  // The warps the calls run on, before a symbolic loop's planning reshapes its region.
  std::set<int> warps;
  for (const auto& region : plan.regions)
    for (const auto& node : region.graph.nodes)
      warps.insert(node.warp);
  if (!allocate_all_channels(plan, diags) || !done(WarpSplitPass::AllocateChannels))
    return plan;
  for (auto& region : plan.regions)
    if (region.kind == Region::Kind::Expanded)
      region.warps = split_warps(region.graph);
  if (!done(WarpSplitPass::SplitWarps))
    return plan;
  if (options.verify && (!verify_all(plan, kernel, diags) || !done(WarpSplitPass::VerifySync)))
    return plan;
  plan.warps.assign(warps.begin(), warps.end());
  if (plan.regions.size() > 1) {
    plan.fence_channel = ++plan.channel_count;
    plan.channel_kinds.push_back(ChannelKind::Fence);
  }
  return plan;
}

} // namespace s2p::passes
