// Kernel versions: a warp kernel whose static conditions depend on kernel parameters alone
// (`if (use_bias)`, `if (K > 4)`) is split into one version per combination of their values,
// each with the conditions resolved, so that every version is an ordinary kernel the passes
// plan exactly; the generated body picks the version at run time. The parameters are values
// the kernel never writes, so a condition has the same value wherever the sequential program
// evaluates it. Conditions that also use loop variables stay with the passes (resolved per
// iteration where the loop is expanded).
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"

#include <optional>
#include <string>
#include <vector>

namespace s2p::pass_manager {

// At most this many distinct conditions on parameters: each doubles the generated code.
inline constexpr int kMaxParameterConditions = 3;

struct KernelVersion {
  ir::Kernel kernel;  // the kernel with the parameter conditions resolved
  std::string guard;  // C++ condition selecting it; empty for the last version (the `else`)
};

// The kernel's versions: one (the kernel itself, no guard) when no condition depends on
// parameters alone. Reports more than kMaxParameterConditions conditions as an error.
std::optional<std::vector<KernelVersion>> kernel_versions(const ir::Kernel& kernel,
                                                          ir::Diagnostics& diags);

// `{ if (guard0) body0 else if (guard1) body1 ... else bodyN }` (bodies braces included).
std::string select_version(const std::vector<KernelVersion>& versions,
                           const std::vector<std::string>& bodies);

// C++ text of a condition (its expressions as the IR holds them: constants folded).
std::string condition_to_cpp(const ir::Condition& condition);

} // namespace s2p::pass_manager
