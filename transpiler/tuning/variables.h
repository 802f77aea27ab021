// The variables tuning rules read, by scope. Every name a predicate uses is checked against
// this table when the rule file is read, so a typo is an error naming the rule, not a rule
// that silently never fires.
//
// Any scope:
//   tile.busy tile.idle tile.compute tile.exchange        per tile, cycles (arrays)
//   tile.peak_memory tile.free_memory tile.bytes_in tile.bytes_out   per tile, bytes (arrays)
//   run.total_cycles run.compute_cycles run.exchange_cycles run.sync_cycles
//   run.exchange_compute_ratio                            exchange / compute cycles
//   fabric.tiles fabric.chips fabric.tiles_per_chip fabric.sram_bytes
//   fabric.failed_tiles                                   failed tile ids (array)
//   warp.bubble                                           per warp: waiting / (busy + waiting) (tasks: idle share)
//   plan.tiles plan.steps plan.fusions
//   plan.consecutive_foralls   longest run of consecutive, not yet fused foralls on one map
//                              that --plan can fuse (StepPlan::fuses_from)
//   plan.splittable_steps      foralls whose body writes several fields, not yet split
//                              (StepPlan::max_parts > 1)
//   plan.variants_left         S2P_VARIANTS groups whose current choice has a next variant
//   input.<name>               caller-supplied facts (input sizes); 0 when not given
//   var.<name>                 rule variables (set_variable); 0 until set
// for_each "map":
//   map.tiles map.weights (ones when the map has none) map.usable (fabric tiles, array)
//   map.busy map.idle          tile.busy / tile.idle at the map's tiles (arrays)
//   map.failed                 how many of the map's tiles are failed
// for_each "pool":
//   pool.depth
#pragma once

#include "tuning/expr.h"
#include "tuning/feedback.h"
#include "tuning/plan.h"
#include "tuning/rules.h"

#include <map>
#include <string>
#include <string_view>

namespace s2p::tuning {

// Whether a predicate in `scope` may read `name`.
bool is_variable(std::string_view name, Scope scope);

// What the variables read in one evaluation: the feedback, the plan as adjusted so far, the
// rule variables, and the map or pool the rule is evaluated for (when its scope has one).
struct Bindings {
  const Feedback& feedback;
  const KernelPlan& plan;
  const std::map<std::string, double>& variables;
  const MapPlan* map = nullptr;
  const PoolPlan* pool = nullptr;
};

// The value of `name`; throws EvalError when it cannot be had (a map tile past the report).
Value lookup(const Bindings& bindings, std::string_view name);

// The longest run of consecutive foralls on the same map not covered by a fusion:
// its first step and length (0 when none).
std::pair<int, int> consecutive_foralls(const KernelPlan& plan);

// The steps a split may apply to and the plan does not split yet, in order.
std::vector<int> splittable_steps(const KernelPlan& plan);

} // namespace s2p::tuning
