// The passes a multi-tile kernel goes through before its schedule templates are planned
// (schedules/tile_schedules.h, the `plan-tile-schedules` pass): `given-extents` (--extents: the
// kernel planned for the field extents the user gives instead of those its calls pass) and
// `split-tasks-into-warps` (each forall whose task is a warp pipeline gets that pipeline's
// generated body). Each is its own function so that a test runs it alone on IR it builds.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/kernel_passes.h"
#include "pass_manager/transpile_options.h"

#include <functional>
#include <optional>

namespace s2p::pass_manager {

// The kernel planned for the extents `given` names for it (replacing those its calls pass, and
// any reason they were unknown), or nothing when `given` does not name it.
std::optional<ir::Kernel> apply_given_extents(const ir::Kernel& kernel, const GivenExtents& given);

// Plans one task kernel through the warp-split passes: its output's body is what every task
// of the forall runs on its tile (nothing when the task calls no intrinsic). Nothing after an
// error, reported into the diagnostics it was given.
using PlanTaskKernel = std::function<std::optional<KernelOutput>(const ir::Kernel& task)>;

// Every forall step with a task: its body becomes the step's body head followed by the task's
// planned body, and it carries the task's warp operations (what the code estimate counts).
// `tasks` collects the largest warp count, the channels and the task kernels' files. False
// after an error (a task that declares a pool but calls no intrinsic, at the forall).
bool split_tasks_into_warps(ir::Kernel& kernel, const PlanTaskKernel& plan_task,
                            ir::Diagnostics& diags, KernelSummary& tasks);

} // namespace s2p::pass_manager
