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
  // A loop with a constant trip count longer than its analysis window stays a loop (a symbolic
  // loop, as if its count were known only at run time) where the rules of such loops allow it;
  // a loop they do not allow is expanded, with a note saying why. Off by default: expanded code
  // is planned exactly; the driver turns this on when the expanded kernel does not fit a tile.
  bool keep_long_constant_loops = false;
};

struct CdfgRegions {
  std::vector<ir::Region> regions; // empty after an error
  bool call_limit_reached = false; // the error was CdfgOptions::max_nodes
};

// The kernel split into regions (expanded code; loops with a run-time trip count, expanded
// over an analysis window), each with its CDFG.
CdfgRegions build_regions(const ir::Kernel& kernel, ir::Diagnostics& diags,
                          const CdfgOptions& options = {});

// The CDFG of a kernel without run-time trip counts (one expanded region).
ir::Graph build_cdfg(const ir::Kernel& kernel, ir::Diagnostics& diags,
                     const CdfgOptions& options = {});

// Merges `range` into the label for `space` (adjacent and overlapping ranges coalesce).
void add_label(ir::Edge& edge, int space, ir::Range range);

} // namespace s2p::passes
