// CDFG construction: schedule tree -> CDFG. Every dynamic instance of an intrinsic call
// becomes a node (loops with constant trip counts are expanded); control edges chain the
// nodes of each warp in program order; data edges go from the last writer of each unit a
// node reads to that node (read-after-write, through aliasing tensors too).
#pragma once

#include "ir/diagnostic.h"
#include "ir/graph.h"
#include "ir/regions.h"

#include <vector>

namespace s2p::passes {

struct CdfgOptions {
  // Expanding more calls than this is reported instead of exhausting memory.
  std::int64_t max_nodes = 1'000'000;
};

// The kernel split into regions (expanded code; loops with a run-time trip count, expanded
// over an analysis window), each with its CDFG.
std::vector<ir::Region> build_regions(const ir::Kernel& kernel, ir::Diagnostics& diags,
                                      const CdfgOptions& options = {});

// The CDFG of a kernel without run-time trip counts (one expanded region).
ir::Graph build_cdfg(const ir::Kernel& kernel, ir::Diagnostics& diags,
                     const CdfgOptions& options = {});

// Merges `range` into the label for `space` (adjacent and overlapping ranges coalesce).
void add_label(ir::Edge& edge, int space, ir::Range range);

} // namespace s2p::passes
