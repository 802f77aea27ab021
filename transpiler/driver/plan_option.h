// --plan foo.<kernel>.plan.json (repeatable): transpile a kernel with the resource-map weights
// and usable tiles (less the plan's failed tiles), the warp overrides, the fusions, the splits,
// the variants and the tunable constants a tuning plan (seq2par.plan/1, tuning/plan.h) chose. The decisions
// the emitter does not act on yet (ring depths that are not tunables) are named in a warning.
#pragma once

#include "pass_manager/transpile_options.h"

#include <string>
#include <variant>
#include <vector>

namespace s2p::driver {

struct PlanFiles {
  pass_manager::TuningDecisions decisions;
  std::vector<std::string> warnings;
};

// The plans' overrides, or a message naming the file and the bad field.
std::variant<PlanFiles, std::string> read_plan_files(const std::vector<std::string>& paths);

} // namespace s2p::driver
