// Proof obligations of the warp split, checked mechanically (tests, the fuzzer and
// every transpile unless --no-verify use this):
//  1. every pair of conflicting accesses (same units, at least one write) on different
//     warps is ordered by happens-before: program order within a warp plus the
//     synchronized edges (a race otherwise);
//  2. running the warp programs against counting channels finishes (no deadlock), and
//     the k-th signal on every channel comes from the edge whose wait expects phase k.
// Because channels only count up, one complete run implies every schedule completes.
#pragma once

#include "ir/graph.h"

#include <string>
#include <vector>

namespace s2p::passes {

// Human-readable violations; empty when the plan is sound.
std::vector<std::string> verify_sync(const ir::Graph& graph,
                                     const std::vector<ir::WarpProgram>& warps);

} // namespace s2p::passes
