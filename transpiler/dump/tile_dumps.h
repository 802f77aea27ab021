// `--dump=tile-steps` for a multi-tile kernel: what the front end recorded (its steps, the
// index maps of each forall's reads, its resource maps and distributed fields, the extents
// the calls pass) and what planning made of each step (its schedule template or why there
// is none). JSON "seq2par.tile-steps/1" and a Graphviz DOT of fields flowing through steps.
#pragma once

#include "ir/kernel.h"
#include "schedules/tile_schedules.h"

#include <nlohmann/json.hpp>

#include <string>

namespace s2p::dump {

nlohmann::ordered_json tile_steps_json(const ir::Kernel& kernel,
                                       const schedules::TileSchedules& schedules);
std::string tile_steps_dot(const ir::Kernel& kernel, const schedules::TileSchedules& schedules);

// `--dump=access`: each forall step's access relations (access/tile_step_relations.h) in isl's
// notation, JSON "seq2par.access/1" (per step its domain and one relation per access, with the
// agile view and index map it came from) and a Graphviz DOT of steps and fields.
nlohmann::ordered_json access_json(const ir::Kernel& kernel);
std::string access_dot(const ir::Kernel& kernel);

} // namespace s2p::dump
