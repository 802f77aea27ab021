#include "passes/pipeline.h"

#include "passes/allocate_channels.h"
#include "passes/build_cdrfg.h"
#include "passes/check_tile_memory.h"
#include "passes/plan_symbolic_loop.h"
#include "passes/remove_redundant_edges.h"
#include "passes/split_warps.h"
#include "passes/verify_sync.h"

#include <set>

namespace s2p::passes {

using namespace s2p::ir;

int KernelPlan::call_count() const {
  int calls = 0;
  for (const auto& region : regions)
    calls += region.kind == Region::Kind::Expanded ? static_cast<int>(region.graph.nodes.size())
                                                   : region.loop.body_size;
  return calls;
}

namespace {

// Channels of an expanded region are numbered from 1 by allocate_channels; move them after
// the channels of the regions before it.
void offset_channels(Region& region, int offset) {
  for (auto& e : region.graph.edges)
    if (e.channel > 0)
      e.channel += offset;
  for (auto& program : region.warps)
    for (auto& op : program.ops)
      if (op.channel > 0)
        op.channel += offset;
}

bool plan_expanded(Region& region, const PipelineOptions& options, KernelPlan& plan,
                   const Kernel& kernel, Diagnostics& diags) {
  Graph& graph = region.graph;
  allocate_channels(graph);
  region.warps = split_warps(graph);
  if (options.verify) {
    const auto problems = verify_sync(graph, region.warps);
    if (!problems.empty()) {
      diags.error(kernel.loc, "internal error: the warp split of '" + kernel.name +
                                  "' is unsound (" + problems.front() + "); please report this");
      return false;
    }
  }
  offset_channels(region, plan.channel_count);
  plan.channel_kinds.insert(plan.channel_kinds.end(), static_cast<std::size_t>(graph.data_channel_count),
                            ChannelKind::Data);
  plan.channel_kinds.insert(plan.channel_kinds.end(),
                            static_cast<std::size_t>(graph.channel_count - graph.data_channel_count),
                            ChannelKind::Resource);
  plan.channel_count += graph.channel_count;
  return true;
}

} // namespace

KernelPlan plan_kernel(const Kernel& kernel, const PipelineOptions& options, Diagnostics& diags) {
  KernelPlan plan;
  if (!check_tile_memory(kernel, options.tile_sram_bytes, diags))
    return plan;
  plan.regions = build_regions(kernel, diags, options.cdfg);
  if (diags.has_errors())
    return plan;
  std::set<int> warps;
  for (auto& region : plan.regions) {
    add_resource_edges(region.graph);
    if (!options.keep_redundant)
      plan.redundant_edges += remove_redundant_edges(region.graph);
    for (const auto& node : region.graph.nodes)
      warps.insert(node.warp);
    if (region.kind == Region::Kind::Expanded) {
      if (!plan_expanded(region, options, plan, kernel, diags))
        return plan;
    } else {
      if (!plan_symbolic_loop(region, plan.channel_count + 1, plan.channel_kinds, diags))
        return plan;
      plan.channel_count = static_cast<int>(plan.channel_kinds.size());
    }
  }
  plan.warps.assign(warps.begin(), warps.end());
  if (plan.regions.size() > 1) {
    plan.fence_channel = ++plan.channel_count;
    plan.channel_kinds.push_back(ChannelKind::Fence);
  }
  return plan;
}

} // namespace s2p::passes
