// The owner-copy accounting of a forall launch (moves, planned and minimum bytes, bytes in
// and out per tile, work stealing's extra): the same in every backend's report.
#pragma once

#include <seq2par/runtime.h>

#include <nlohmann/json.hpp>

namespace s2p::rt {

nlohmann::ordered_json owner_copy_summary(const tile_kernel_info& info,
                                          const tile_program& program);

// The kernel's shared read-only structures in this launch: each one's decision, master and
// reason, and the kernel-level plan's peak live bytes per tile shared against replicated.
nlohmann::ordered_json shared_structures_summary(const tile_program& program);

} // namespace s2p::rt
