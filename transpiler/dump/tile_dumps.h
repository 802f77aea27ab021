// `--dump=tile-steps` for a multi-tile kernel: what the front end recorded (its steps, the
// index maps of each forall's reads, its resource maps and distributed fields, the extents
// the calls pass) and what planning made of each step (its schedule template or why there
// is none). JSON "seq2par.tile-steps/1" and a Graphviz DOT of fields flowing through steps.
#pragma once

#include "ir/kernel.h"
#include "planning/tile_schedules.h"

#include <nlohmann/json.hpp>

#include <string>

namespace s2p::dump {

nlohmann::ordered_json tile_steps_json(const ir::Kernel& kernel,
                                       const planning::TileSchedules& schedules);
std::string tile_steps_dot(const ir::Kernel& kernel, const planning::TileSchedules& schedules);

} // namespace s2p::dump
