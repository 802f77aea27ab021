// Warp code generation: the kernel's new body. The kernel keeps its signature; its body
// re-declares the kernel-scope pools, tensors and scalars, then launches one lambda per
// warp. Each lambda holds the warp's calls in program order (loops with constant trip
// counts expanded, loop variables replaced by their values) with `wait` before and
// `signal` after them, and each call names the source line it came from.
#pragma once

#include "ir/kernel.h"
#include "passes/warp_split.h"

#include <string>

namespace s2p::emit {

struct EmitOptions {
  std::string source_name; // how generated comments name the input file
};

// The replacement for the kernel's compound statement, braces included (unformatted).
std::string emit_kernel_body(const ir::Kernel& kernel, const passes::WarpSplit& plan,
                             const EmitOptions& options);

} // namespace s2p::emit
