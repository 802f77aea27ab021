// --plan applied to a kernel: the resource-map weights a tuning plan chose replace those the
// kernel was written with, both in what planning sees (the map's ir::MapSpec, so schedule
// templates match) and in the emitted code (a `.weights({...})` call on the map right after
// its declaration: resource_map::weights re-deals the segments, so the program runs the
// planned map). The kernel's source is not edited; its sequential meaning does not depend on
// the map, so the parallel program still computes what the sequential one does.
//
// Warp overrides move intrinsic calls onto another warp before the warp-split passes run:
// those passes derive every signal and wait from the calls' dependencies, whatever warp a call
// is on, so a moved call still computes what the sequential program computes. The one thing
// they cannot see is mutable state an intrinsic reaches outside its arguments (a static, a
// global): calls reaching the same such state must stay on one warp, else they would race, so
// a move that separates them is refused, as '#pragma s2p warp' is.
//
// Fusions are pass_manager/fuse_foralls.h; a plan's other decisions (tile count, ring depths,
// splits, ...) are refused by the driver or not read.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pass_manager/transpile_options.h"

#include <optional>
#include <vector>

namespace s2p::pass_manager {

// The kernel with `overrides` applied, or nothing after an error at `declared_at` (a map the
// kernel does not build with constant sizes, a weight count that is not its tile count, a map
// declared const).
std::optional<ir::Kernel> apply_plan_overrides(const ir::Kernel& kernel,
                                               const std::vector<MapWeights>& overrides,
                                               const ir::SourceLocation& declared_at,
                                               ir::Diagnostics& diags);

// The kernel with its calls (in a multi-tile kernel, its tasks' calls) moved as `moves` say,
// or nothing after an error at `declared_at` (an op no call matches, a warp out of range, a
// move that separates calls sharing mutable state).
std::optional<ir::Kernel> apply_warp_overrides(const ir::Kernel& kernel,
                                               const std::vector<CallWarp>& moves,
                                               const ir::SourceLocation& declared_at,
                                               ir::Diagnostics& diags);

} // namespace s2p::pass_manager
