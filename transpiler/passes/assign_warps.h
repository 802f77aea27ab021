// Automatic warp assignment (`--auto-warps[=N]`): every intrinsic call site without a warp
// annotation gets a warp by one documented rule, so a kernel can be written without
// `#pragma s2p warp(N)`.
//
// The rule. Each call site gets a role from what it accesses:
//   store   — it writes a tensor_ref (results leave the tile);
//   load    — otherwise, it reads a tensor_ref (data enters the tile);
//   compute — otherwise (pool -> pool, or pool writes from plain values).
// The unannotated sites, ordered load -> compute -> store (the direction data flows through
// the pool) and in program order within a role, are cut into at most N consecutive groups
// so that the most expensive group is as cheap as possible; each group is one warp. Cost is
// the site's estimated cycles over all its instances: its S2P_COST when that is an
// arithmetic of constants and `param.size()`, else the elements it touches (as the
// simulator's default), times how often it runs (loops with a run-time trip count count 64
// iterations). N defaults to the number of unannotated sites, at most the hardware threads
// of a tile (6), so each pipeline stage gets its own warp when threads allow.
// Annotated sites keep their warp; automatic warps are numbered after the largest annotated
// one. Soundness does not depend on the rule: every warp split is synchronized and
// verified the same way whichever warps the calls are on.
//
// The pass works on a schedule tree and its tensors, so it applies to any body of calls.
#pragma once

#include "ir/kernel.h"

#include <seq2par/sim/machine_defaults.h>

#include <cstdint>
#include <string>
#include <vector>

namespace s2p::passes {

// The hardware threads of a tile: the default upper bound on automatic warps.
inline constexpr int kDefaultAutoWarps = static_cast<int>(sim::kDefaultHardwareThreads);

struct AutoWarpOptions {
  int warps = 0; // N; 0: one per unannotated call site, at most kDefaultAutoWarps
};

// The role the rule gives a call, and the words that say why.
ir::WarpRole warp_role(const std::vector<ir::Tensor>& tensors, const ir::CallSite& call,
                       std::string* why = nullptr);

// A call's estimated cycles per instance (S2P_COST when it can be read, else elements).
std::int64_t instance_cost(const std::vector<ir::Tensor>& tensors, const ir::CallSite& call);

// Sets `warp` and `warp_choice` of every call under `root`.
void assign_warps(ir::ScheduleNode& root, const std::vector<ir::Tensor>& tensors,
                  const AutoWarpOptions& options);
void assign_warps(ir::Kernel& kernel, const AutoWarpOptions& options);

} // namespace s2p::passes
