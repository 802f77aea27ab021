// Central and local plans, one level: a central plan decides how a kernel's work is split
// over the chips (each map's share per chip: the sum of its weights on the chip's tiles) and
// leaves the rest to the chips. Each chip's local interpreter takes its part of the plan (its
// maps restricted to its tiles, numbered 0..k-1 on the chip), its own feedback (the report's
// tiles of that chip, its failed tiles) and its own rule set, and refines its part with one
// round of the rules (apply.h). Two chips given the same central plan may so end with
// different local plans: one rebalances, another with a failed tile repartitions over the
// tiles it has left. `merge` materializes the whole plan again: each map's chip share stays
// what the central plan decided, dealt within the chip by the local weights, over the fabric
// tiles the local plan kept (usable_tiles).
//
// One level only: a chip's local plan is not split again (over tile groups, say). The local
// round uses the same evaluator, rule format and evaluation order as the central one.
#pragma once

#include "tuning/apply.h"

#include <functional>
#include <vector>

namespace s2p::tuning {

// The chip a fabric tile is on.
inline int chip_of(int tile, int tiles_per_chip) {
  return tile / tiles_per_chip;
}

// Chip `chip`'s part of `central`: the maps with tiles on it, restricted to those tiles (local
// numbering), and the kernel's steps, pools and decisions; nothing when no map uses the chip.
std::optional<KernelPlan> local_part(const KernelPlan& central, int chip, int tiles_per_chip);
// The feedback a chip's interpreter sees: its tiles' values (local numbering), its failed
// tiles, one chip of `tiles_per_chip` tiles; the kernel's totals as reported.
Feedback local_feedback(const Feedback& feedback, int chip, int tiles_per_chip);

struct LocalRound {
  int chip = 0;
  KernelPlan part;   // the chip's part of the central plan
  ApplyResult local; // its local round: the local plan, rules and trace
};

struct CentralLocalResult {
  std::vector<LocalRound> chips; // one per chip the central plan uses, in chip order
  KernelPlan merged;             // the central plan materialized with every local plan
};

// One local round on every chip the central plan uses; `rules_of(chip)` is that chip's rule
// set (the same for all, or one per chip). Deterministic.
CentralLocalResult refine_locally(const KernelPlan& central, const Feedback& feedback,
                                  int tiles_per_chip,
                                  const std::function<RuleSet(int chip)>& rules_of,
                                  const ApplyOptions& options = {});

// The central plan with each chip's part replaced by its local plan (see above).
KernelPlan merge(const KernelPlan& central, const std::vector<LocalRound>& chips,
                 int tiles_per_chip);

} // namespace s2p::tuning
