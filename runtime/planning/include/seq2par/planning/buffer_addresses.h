// <seq2par/planning/buffer_addresses.h> — base addresses for the buffers of a schedule the
// planning library writes (a forall's, a ring's), from the tile memory allocator
// (<seq2par/planning/tile_memory.h>), so that `s2p-sim check` and runs verify a compile-time
// layout: no two buffers live together overlap or, when the fabric separates banks, share a bank.
#pragma once

#include <seq2par/planning/tile_memory.h>
#include <seq2par/sim/fabric.h>

#include <nlohmann/json.hpp>

namespace s2p::rt {

// Writes `base` into every buffer of `schedule` (seq2par.schedule/1) whose `bytes` is a number
// or names a parameter that is a number (other expressions may differ per tile).
// These schedules are one template for all tiles with one `bytes` per buffer; tiles holding the
// same buffers share one layout, and each buffer is one equal-address set over those layouts,
// so its base is one number on every tile that holds it (a multicast's receivers take it at one
// address) while a buffer only some tiles hold (a master's copy) takes room only there. A buffer's `live` range is
// used when it has one; otherwise it is live for the whole kernel (inputs and results). Tile
// memory is the fabric's, or the schedule's `fabric.tile_sram_bytes` when larger. When the
// buffers do not fit, no base is written and the returned layout says why (the simulator then
// reports the out-of-memory tile itself, as it did before addresses were given).
memory_layout assign_buffer_addresses(nlohmann::ordered_json& schedule, const sim::Fabric& fabric);

} // namespace s2p::rt
