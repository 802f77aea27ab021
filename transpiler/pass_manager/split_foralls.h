// --plan's splits (operation splitting of the tuning loop; loop fission): a forall whose body writes
// several agile fields, in several top-level statements, becomes `parts` consecutive foralls
// over the same tiles, before planning, so the dumps, the schedule templates and the emitted
// code all see the parts. Fusion's counterpart (pass_manager/fuse_foralls.h): a fused forall keeps
// every output's blocks live at once; each part holds only its own outputs and inputs, which
// lowers the peak tile memory of the step (at the price of a superstep per part).
//
// Why it computes what the forall computed: the front end accepts a body that writes several
// fields only when each of them is on the output's map and is accessed only at the task's own
// index (frontend/forall_global_view.cpp). So index i's statements touch index i of the written
// fields and nothing another index's statements write; running statements a..b for every
// index, then b+1..c for every index, gives each index the same sequence of statements on the
// same values. Two things could still see the cut, and a split is refused at the statement
// that shows them, nothing written: a local of the body declared by a statement of one part
// and read by a statement of another (each part is its own lambda), and a statement that may
// `return` (skipping its index's later statements, which another part would run). The pass
// also refuses, as a guard for IR from elsewhere, a part that reads a field another part
// writes at another index than its own.
//
// The statements are cut at the statements that write a field (a declaration goes with the
// next statement that writes); `parts` of them are dealt evenly over the writing statements,
// in order.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <optional>
#include <vector>

namespace s2p::pass_manager {

// The most parts step `step` can be split into (its statements that write a field), or 1
// when it cannot be split (a collective, a block-by-block forall, a body that writes one field).
int max_split_parts(const ir::TileStep& step);

// The kernel with each split applied (step indices are the kernel's as written; `fusions` are
// the plan's fusions, already applied, which renumber the steps after them), or nothing after an
// error at the statement that shows the cut (at `declared_at` for a kernel that is not
// multi-tile, a step it does not have, or a step that cannot be split).
std::optional<ir::Kernel> apply_splits(const ir::Kernel& kernel, const std::vector<StepSplit>& splits,
                                       const std::vector<StepFusion>& fusions,
                                       const ir::SourceLocation& declared_at, ir::Diagnostics& diags);

} // namespace s2p::pass_manager
