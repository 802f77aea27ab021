// One run of seq2par over its inputs: inputs the incremental cache or the pre-scan can
// decide are not parsed; the rest go through the front end and the kernel passes
// (run_tools.h); then every output is written, or none (any input with errors), with the
// manifest, the cache and the run's account (--report).
#pragma once

#include "driver/command_line.h"

namespace s2p::driver {

// The exit code: 0, kExitInputError or kExitUsageError.
int transpile(const RunSettings& settings);

} // namespace s2p::driver
