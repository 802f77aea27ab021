// The warp-split pipeline for one kernel, region by region: each
// expanded region goes through CDFG -> CDRFG -> redundant edges -> channels -> warps; each
// loop with a run-time trip count through the same CDRFG and redundancy rules on its
// analysis window, then plan_symbolic_loop. Regions are separated by fences on one extra
// channel. Channels are numbered region after region.
#pragma once

#include "ir/diagnostic.h"
#include "ir/plan.h"
#include "passes/assign_warps.h"
#include "passes/build_cdfg.h"
#include "passes/check_tile_memory.h"

#include <optional>
#include <string>
#include <vector>

namespace s2p::passes {

struct PipelineOptions {
  bool keep_redundant = false; // skip redundant-edge removal (correct, with more synchronization)
  bool verify = true; // check every expanded region's plan (races, deadlock) before emitting
  std::int64_t tile_sram_bytes = kDefaultTileSramBytes; // the pools must fit one tile
  CdfgOptions cdfg;
  // --auto-warps[=N]: calls without a warp annotation get one (passes/assign_warps.h);
  // none: such a call is an error at the call.
  std::optional<AutoWarpOptions> auto_warps;
};

struct KernelPlan {
  std::vector<ir::Region> regions;
  int channel_count = 0;
  std::vector<ir::ChannelKind> channel_kinds; // channel c is channel_kinds[c - 1]
  int fence_channel = 0;     // 0 when the kernel is a single region
  std::vector<int> warps;    // every warp number used, ascending
  int redundant_edges = 0;

  bool single_expanded_region() const {
    return regions.size() == 1 && regions[0].kind == ir::Region::Kind::Expanded;
  }
  int call_count() const;
};

KernelPlan plan_kernel(const ir::Kernel& kernel, const PipelineOptions& options,
                       ir::Diagnostics& diags);

} // namespace s2p::passes
