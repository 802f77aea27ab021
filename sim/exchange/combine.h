// Applying a received fragment to local memory: copy, or combine element-wise (
// receive-and-reduce). Integer sums and products wrap (two's complement), never UB.
#pragma once

#include <cstddef>
#include <span>

#include "seq2par/sim/schedule.h"

namespace s2p::sim::detail {

/// dst[i] = op(dst[i], src[i]) over whole elements of `type` (copy: dst = src). Sizes must match.
void combine_into(std::span<std::byte> dst, std::span<const std::byte> src, CombineOp op,
                  ElementType type);

} // namespace s2p::sim::detail
