// --plan foo.<kernel>.plan.json (repeatable): transpile a kernel with the resource-map weights
// and warp overrides a tuning plan (seq2par.plan/1, tuning/plan.h) chose. A plan that
// repartitions a map over other tiles is refused, and the decisions the emitter does not act
// on yet (ring depths, fusions, splits, variants) are named in a warning.
#pragma once

#include "pipeline/transpile_options.h"

#include <string>
#include <variant>
#include <vector>

namespace s2p::driver {

struct PlanFiles {
  pipeline::PlanOverrides overrides;
  pipeline::WarpOverrides warps;
  std::vector<std::string> warnings;
};

// The plans' overrides, or a message naming the file and the bad field.
std::variant<PlanFiles, std::string> read_plan_files(const std::vector<std::string>& paths);

} // namespace s2p::driver
