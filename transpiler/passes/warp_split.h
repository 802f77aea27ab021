// The warp-split passes for one kernel: CDFG -> CDRFG -> redundant edges -> channels -> warps
// for each expanded region; each loop with a run-time trip count through the same CDRFG and
// redundancy rules on its analysis window, then plan_symbolic_loop. Regions are separated by
// fences on one extra channel. Channels are numbered region after region.
#pragma once

#include "ir/diagnostic.h"
#include "ir/regions.h"
#include "passes/assign_warps.h"
#include "passes/build_cdfg.h"
#include "passes/check_tile_memory.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::passes {

struct WarpSplitOptions {
  bool keep_redundant = false; // skip redundant-edge removal (correct, with more synchronization)
  // Check the IR after every pass (passes/verify_ir.h) and every expanded region's plan
  // (races, deadlock, passes/verify_sync.h) before emitting; --no-verify skips both.
  bool verify = true;
  std::int64_t tile_sram_bytes = kDefaultTileSramBytes; // the pools must fit one tile
  CdfgOptions cdfg;
  // --auto-warps[=N]: calls without a warp annotation get one (passes/assign_warps.h);
  // none: such a call is an error at the call.
  std::optional<AutoWarpOptions> auto_warps;
};

struct WarpSplit {
  std::vector<ir::Region> regions;
  int channel_count = 0;
  std::vector<ir::ChannelKind> channel_kinds; // channel c is channel_kinds[c - 1]
  int fence_channel = 0;     // 0 when the kernel is a single region
  std::vector<int> warps;    // every warp number used, ascending
  int redundant_edges = 0;
  bool call_limit_reached = false; // build-cdfg stopped at CdfgOptions::max_nodes

  bool single_expanded_region() const {
    return regions.size() == 1 && regions[0].kind == ir::Region::Kind::Expanded;
  }
  int call_count() const;
  // Loops with constant trip counts kept as loops (CdfgOptions::keep_long_constant_loops).
  int constant_loops_kept() const;
};

// The warp-split passes in the order run_warp_split runs them, each over every region before the
// next starts (pass_manager/pass_registry.h lists them among every other pass, by name).
enum class WarpSplitPass {
  CheckTileMemory,      // the pools fit one tile
  BuildCdfg,            // regions, each expanded one with its data-flow graph
  AddResourceEdges,     // the CDRFG: buffer reuse as resource edges
  RemoveRedundantEdges, // edges other paths imply (skipped with keep_redundant)
  AllocateChannels,     // channels numbered region after region; symbolic loops planned whole
  SplitWarps,           // each warp's program of calls, waits and signals
  VerifySync,           // the split checked for races and deadlock (skipped without verify)
};
std::string_view name_of(WarpSplitPass pass);
const std::vector<WarpSplitPass>& all_warp_split_passes();

// Called after each pass that ran, with the plan as that pass left it.
using AfterWarpSplitPass = std::function<void(WarpSplitPass, const WarpSplit&)>;

WarpSplit run_warp_split(const ir::Kernel& kernel, const WarpSplitOptions& options,
                       ir::Diagnostics& diags, const AfterWarpSplitPass& after = {});

} // namespace s2p::passes
