#include "pass_manager/tile_kernel_passes.h"

#include <algorithm>

namespace s2p::pass_manager {

std::optional<ir::Kernel> apply_given_extents(const ir::Kernel& kernel, const GivenExtents& given) {
  const auto extents = given.find(kernel.name);
  if (extents == given.end() || !kernel.multi_tile)
    return std::nullopt;
  ir::Kernel planned = kernel;
  planned.multi_tile->parameter_extents = extents->second;
  planned.multi_tile->extents_from = "--extents " + kernel.name;
  planned.multi_tile->no_extents_reason.clear();
  return planned;
}

bool split_tasks_into_warps(ir::Kernel& kernel, const PlanTaskKernel& plan_task,
                            ir::Diagnostics& diags, KernelSummary& tasks) {
  for (ir::TileStep& step : kernel.multi_tile->steps) {
    if (!step.task)
      continue;
    auto task = plan_task(*step.task);
    if (!task)
      return false;
    if (!task->body) {
      diags.error(step.loc, "this forall's task declares a pool but calls no intrinsic; a task "
                            "split into warps needs intrinsic calls to run");
      return false;
    }
    step.body = step.body_head + *task->body;
    step.warp_operations = task->summary.warp_operations;
    tasks.warps = std::max(tasks.warps, task->summary.warps);
    tasks.channels += task->summary.channels;
    for (auto& file : task->summary.files)
      tasks.files.push_back(std::move(file));
  }
  return true;
}

} // namespace s2p::pass_manager
