// Schedule templates at transpile time: the exchange schedule a multi-tile step will run,
// written beside the generated code so it can be inspected (and checked) before any run.
// A forall's owner-copy plan and a collective's ring depend on the fields' extents; when the
// front end knows them (every call in the file passes the same constant extents, or
// --extents) and every resource map's sizes are constants, seq2par plans the step with the
// planning library the runtime runs with: the schedule the runtime will run for those
// extents.
#pragma once

#include "ir/kernel.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace s2p::schedules {

struct ScheduleTemplate {
  std::optional<nlohmann::ordered_json> schedule; // absent: `reason` says why
  std::string reason;
  // The maps or accesses fail for these extents: the kernel, called as the file calls it,
  // throws `reason` when it runs (worth a warning).
  bool fails_when_run = false;
  // Not empty: the step cannot run on this fabric at these extents (its tiles do not hold
  // what it needs), an error at the step.
  std::string error;
};

// `fabric_file`: the fabric to plan for (empty: the built-in chip, repeated as the tiles need,
// as the runtime does without S2P_FABRIC); `tile_sram_bytes`: its tiles' memory (0: the
// fabric's).
ScheduleTemplate forall_schedule_template(const ir::Kernel& kernel, const ir::TileStep& step,
                                          const std::string& fabric_file,
                                          std::uint64_t tile_sram_bytes = 0);

// A collective's ring for the extents of its rows (a field parameter): `reason` says why
// there is none (unknown extents, a combine object of the user's).
ScheduleTemplate ring_schedule_template(const ir::Kernel& kernel, const ir::TileStep& step,
                                        const std::string& fabric_file);

// Whether nothing reads what reduce-scatter `step` leaves outside each tile's own fragment (the
// flat ring's partial results): the kernel's next step all-gathers the same field parameter,
// which overwrites all of it. The runtime may then run an exact combine hierarchically
// (s2p::rt::ring_partials::overwritten); seq2par's template and generated call say the same.
bool partials_overwritten(const ir::MultiTile& multi, const ir::TileStep& step);

// When there is no exact ring: the ring for one element per tile, on chips of
// `tiles_per_chip` tiles (none without the fabric simulator).
std::optional<nlohmann::ordered_json> ring_placeholder_template(const ir::Kernel& kernel,
                                                                const ir::TileStep& step,
                                                                std::uint32_t tiles_per_chip);

} // namespace s2p::schedules
