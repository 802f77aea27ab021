// --plan applied to a kernel: the resource-map weights a tuning plan chose replace those the
// kernel was written with, both in what planning sees (the map's ir::MapSpec, so schedule
// templates match) and in the emitted code (a `.weights({...})` call on the map right after
// its declaration: resource_map::weights re-deals the segments, so the program runs the
// planned map). The kernel's source is not edited; its sequential meaning does not depend on
// the map, so the parallel program still computes what the sequential one does.
//
// Only weights are applied so far. A plan's other decisions (tile count, usable tiles, ring
// depths, fusions, ...) are refused by the driver or not read.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"
#include "pipeline/transpile_options.h"

#include <optional>
#include <vector>

namespace s2p::pipeline {

// The kernel with `overrides` applied, or nothing after an error at `declared_at` (a map the
// kernel does not build with constant sizes, a weight count that is not its tile count, a map
// declared const).
std::optional<ir::Kernel> apply_plan_overrides(const ir::Kernel& kernel,
                                               const std::vector<MapWeights>& overrides,
                                               const ir::SourceLocation& declared_at,
                                               ir::Diagnostics& diags);

} // namespace s2p::pipeline
