// <seq2par/planning/forall_schedule.h> — a forall's owner-copy program as a
// seq2par.schedule/1. The runtime writes this schedule when the kernel runs; seq2par writes
// the same one at transpile time as the kernel's template when it knows the fields' extents.
// The program itself comes from the header-only planner every generated program includes
// (`plan_forall` in <seq2par/tile_program.h>).
#pragma once

#include <seq2par/sim/fabric.h>
#include <seq2par/tile_program.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace s2p::rt {

// The schedule buffer of a field's received blocks on a tile: the copies owner-copy and work
// stealing bring in, and a thief's copies of output blocks. They are a layout variable of their
// own (category `received`), live only from the exchange that brings them in to the compute that
// reads them (to the returns for a thief's output copies), so the allocator reuses their space.
std::string received_buffer_name(const std::string& field);

// The schedule buffer of a composed task's pool (tile_task_pool: a pool of a task body split into
// warps), `<pool>__pool`, category `pool`: on the tiles that run tasks, live only during the
// compute (a tile runs its tasks one after another, so it holds one task's pools at a time).
std::string pool_buffer_name(const std::string& pool);
// Its element type: the unsigned integer as wide as the pool's alignment, the largest power of
// two dividing its element's size, at most 8 (schedules name only integer and float elements;
// a pool of a struct still needs its alignment).
std::string pool_buffer_type(std::int64_t element_bytes);
// The schedule buffer of a task body's code image (tile_code_image), `<image>__code`, category
// `code`: on the tiles that run tasks, live for the whole launch; a layout reservation (code
// has no contents a schedule moves), typed u32 (instruction words).
std::string code_buffer_name(const std::string& image);
// The tiles that hold a composed task's pools and the body's code: those that run at least one
// task.
std::vector<int> tiles_running_tasks(const tile_program& program);

// The program as a schedule: superstep 1 exchanges the moves (send cycles list-scheduled so
// each tile's port carries one stream at a time), superstep 2 runs the `forall` codelet on
// every tile, a third sends stolen tasks' results home.
// The fabric's tile memory is taken as it is (a fabric parameter): fields that do not fit get
// no addresses, and check_forall_memory (<seq2par/planning/forall_memory.h>) says why.
nlohmann::ordered_json forall_schedule(const std::string& kernel, int tile_count,
                                       const tile_program& program, const sim::Fabric& fabric);

} // namespace s2p::rt
