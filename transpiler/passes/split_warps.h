// Warp splitting: one program per warp, nodes in program order; for every edge that
// needs synchronization, `wait` right before its destination (sources in program order)
// and `signal` right after its source (destinations in program order).
#pragma once

#include "ir/graph.h"

#include <vector>

namespace s2p::passes {

std::vector<ir::WarpProgram> split_warps(const ir::Graph& graph);

} // namespace s2p::passes
