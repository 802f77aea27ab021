// The warp-split pipeline for one kernel (seed 001 steps 141-163), pass by pass.
#pragma once

#include "ir/diagnostic.h"
#include "ir/graph.h"
#include "passes/build_cdfg.h"

#include <vector>

namespace s2p::passes {

struct PipelineOptions {
  bool keep_redundant = false; // skip step 161 (correct, with more synchronization)
  CdfgOptions cdfg;
};

struct KernelPlan {
  ir::Graph graph; // CDFG + resource edges, redundancy marks and channels
  std::vector<ir::WarpProgram> warps;
  int redundant_edges = 0;
};

KernelPlan plan_kernel(const ir::Kernel& kernel, const PipelineOptions& options, ir::Diagnostics& diags);

} // namespace s2p::passes
