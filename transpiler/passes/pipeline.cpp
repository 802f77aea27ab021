#include "passes/pipeline.h"

#include "passes/allocate_channels.h"
#include "passes/build_cdrfg.h"
#include "passes/remove_redundant_edges.h"
#include "passes/split_warps.h"

namespace s2p::passes {

KernelPlan plan_kernel(const ir::Kernel& kernel, const PipelineOptions& options, ir::Diagnostics& diags) {
  KernelPlan plan;
  plan.graph = build_cdfg(kernel, diags, options.cdfg);
  if (diags.has_errors()) return plan;
  add_resource_edges(plan.graph);
  if (!options.keep_redundant) plan.redundant_edges = remove_redundant_edges(plan.graph);
  allocate_channels(plan.graph);
  plan.warps = split_warps(plan.graph);
  return plan;
}

} // namespace s2p::passes
