// Spec 02 section 7: a loop with a run-time trip count stays a loop. Its body is expanded
// over an analysis window (build_regions), the same resource and redundancy rules run on
// that window, and the cross-warp edges of the steady state become edge families
// relative to the iteration: "call b of iteration t waits for call a of iteration t - d".
// Each family gets a channel whose k-th signal is its k-th source; a wait whose source
// iteration would be negative has phase <= 0 and does not block (the prologue), extra
// signals after the last iteration are harmless (the epilogue). Generated code therefore
// does not grow with the trip count.
//
// The families are checked against every iteration of the window, and the per-warp
// programs are instantiated for several trip counts and verified (no race, no deadlock)
// before anything is emitted.
#pragma once

#include "ir/diagnostic.h"
#include "ir/regions.h"

#include <string>

namespace s2p::passes {

// Fills region.loop.families and region.loop.warps; channels start at `first_channel`
// and their kinds ('d' data, 'r' resource) are appended to `channel_kinds`. Returns false
// (with a diagnostic) if the loop's dependencies are not periodic.
bool plan_symbolic_loop(ir::Region& region, int first_channel,
                        std::vector<ir::ChannelKind>& channel_kinds,
                        ir::Diagnostics& diags);

// The concrete programs of `trips` iterations (trips <= window) and the graph they
// enforce, for verification: window nodes of those iterations, control edges, and one
// synchronized edge per family instance.
struct InstantiatedLoop {
  ir::Graph graph;
  std::vector<ir::WarpProgram> warps;
};
InstantiatedLoop instantiate_symbolic_loop(const ir::Region& region, std::int64_t trips);

} // namespace s2p::passes
