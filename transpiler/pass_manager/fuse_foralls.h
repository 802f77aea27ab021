// --plan's fusions (operation fusion of the tuning loop): tile steps first..first+count-1 of a
// multi-tile kernel become ONE forall, before planning, so the dumps, the schedule templates
// and the emitted code all see one step: one superstep's compute instead of `count`, and one
// exchange phase (the union of the owner-copy moves of the fused foralls' reads of fields none
// of them writes).
//
// The fused task runs the bodies in order for its index: `(body_0)(i, views...);
// (body_1)(i, views...); ...`. That computes what the steps computed one after the other
// only when no body needs another index's result of an earlier body, nor an index a later body
// overwrites. So fusion is applied only to consecutive element-wise (global view) foralls, with
// nothing between them, whose outputs are on one resource map (the same algorithmic blocks
// and owners) and of the same rank, and which read the fields any of them writes only at the
// task's own index (`y[i]`, never `y[i + 1]`). Then every such field is only ever touched at
// the index being computed, on the tile that owns it: it needs no owner-copy move, and the
// runtime (`s2p::rt::writes`) loads, updates and stores it in place with the output.
// Anything else is refused at the first step that breaks the rule; nothing is written.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <optional>
#include <vector>

namespace s2p::pass_manager {

// The kernel with each fusion applied (step indices are the kernel's as written; fusions
// may not overlap), or nothing after an error at the step that cannot be fused (at
// `declared_at` for a kernel that is not multi-tile or a step range it does not have).
// Whether apply_fusions would fuse steps first..first+count-1 of the kernel (the tuning plan's
// patterns count only runs it would: tuning/plan.h's StepPlan::fuses_from).
bool can_fuse(const ir::MultiTile& multi, int first, int count);

std::optional<ir::Kernel> apply_fusions(const ir::Kernel& kernel,
                                        const std::vector<StepFusion>& fusions,
                                        const ir::SourceLocation& declared_at,
                                        ir::Diagnostics& diags);

} // namespace s2p::pass_manager
