// Whether a forall fits in its tiles' memory (see <seq2par/planning/forall_memory.h>).
#include <seq2par/planning/forall_memory.h>

#include <seq2par/planning/forall_schedule.h>

#include <algorithm>

namespace s2p::rt {

namespace {

// field_of for a variable that is no field's (a composed task's pool).
constexpr std::size_t kNoField = static_cast<std::size_t>(-1);

// Results of stolen tasks wait on the thief until the returns; other copies die with the compute.
bool copies_outlive_compute(const tile_program& program, std::size_t field) {
  return field == 0 && !program.returns.empty();
}

std::int64_t received_on(const tile_field& field, std::size_t tile) {
  return tile < field.received_bytes_per_tile.size() ? field.received_bytes_per_tile[tile] : 0;
}

} // namespace

forall_memory check_forall_memory(const tile_program& program, const memory_params& params) {
  forall_memory memory;
  memory.problem.params = params;
  const std::size_t tiles =
      program.fields.empty() ? 0 : program.fields.front().bytes_per_tile.size();
  memory.problem.tiles = static_cast<std::uint32_t>(tiles);
  const live_range whole{kForallExchangeStep, kForallReturnsStep};
  auto add = [&](std::string name, std::size_t tile, std::int64_t bytes, variable_kind kind,
                 live_range live, std::size_t field) {
    if (bytes <= 0)
      return;
    memory.problem.variables.push_back({std::move(name), static_cast<std::uint32_t>(tile),
                                        static_cast<std::uint64_t>(bytes), 8, kind, live});
    memory.field_of.push_back(field);
  };
  for (std::size_t f = 0; f < program.fields.size(); ++f) {
    const tile_field& field = program.fields[f];
    const live_range copy_live{kForallExchangeStep, copies_outlive_compute(program, f)
                                                        ? kForallReturnsStep
                                                        : kForallComputeStep};
    for (std::size_t t = 0; t < tiles; ++t) {
      const std::int64_t received = received_on(field, t);
      add(field.name, t, field.bytes_per_tile[t] - received,
          field.shared ? variable_kind::shared_copy : variable_kind::owned_block, whole, f);
      add(field.name + " (received)", t, received,
          field.shared ? variable_kind::shared_copy : variable_kind::received_block, copy_live, f);
    }
  }
  // A composed task's pools, on each tile that runs tasks, while it computes.
  const std::vector<int> holders = tiles_running_tasks(program);
  for (const tile_task_pool& pool : program.task_pools)
    for (const int t : holders)
      if (static_cast<std::size_t>(t) < tiles)
        add(pool_buffer_name(pool.name), static_cast<std::size_t>(t), pool.bytes,
            variable_kind::pool, {kForallComputeStep, kForallComputeStep}, kNoField);
  // The task body's code, on the same tiles, for the whole launch.
  for (const tile_code_image& image : program.code_images)
    for (const int t : holders)
      if (static_cast<std::size_t>(t) < tiles)
        add(code_buffer_name(image.name), static_cast<std::size_t>(t), image.bytes,
            variable_kind::code, whole, kNoField);
  memory.layout = allocate(memory.problem);
  return memory;
}

namespace {

// What a smaller block saves on the tile: half its owned blocks (a map over twice the tiles
// deals each half as much), and the received copies (smaller memory blocks move only what the
// tile reads; a map that keeps reads on their tile moves nothing).
std::string smaller_block_advice(const forall_memory& memory, std::span<const variable_id> live) {
  std::uint64_t owned = 0, received = 0;
  for (const variable_id v : live) {
    const tile_variable& var = memory.problem.variables[v];
    if (var.kind == variable_kind::owned_block)
      owned += var.bytes;
    else if (var.kind == variable_kind::received_block)
      received += var.bytes;
  }
  std::string text = "a smaller block would save " + memory_size_text(owned / 2) +
                     " (half the owned blocks: a map over twice the tiles, or dealing this tile "
                     "less)";
  if (received > 0)
    text += " and up to " + memory_size_text(received) +
            " (the received copies: smaller memory blocks move only what is read)";
  return text;
}

// What sharing saves on the tile: S2P_SHARED structures replicated on every tile that this
// forall does not read would sit on a master tile instead. A copy this forall reads is live
// while it computes, shared or not.
std::string sharing_advice(const forall_memory& memory, const tile_program& program,
                           std::span<const variable_id> live) {
  const std::size_t first_shared = program.fields.size() - program.shared.size();
  std::uint64_t saved = 0;
  std::string names;
  for (const variable_id v : live) {
    const std::size_t f = memory.field_of[v];
    if (f == kNoField || f < first_shared || program.shared[f - first_shared].shared ||
        program.shared[f - first_shared].read_here)
      continue;
    saved += memory.problem.variables[v].bytes;
    names += (names.empty() ? "'" : ", '") + program.fields[f].name + "'";
  }
  if (saved == 0)
    return "sharing would save nothing here (every read-only copy live at the peak is read by "
           "this forall)";
  return "sharing would save " + memory_size_text(saved) + " (" + names +
         ": S2P_SHARED structures replicated on every tile that this forall does not read)";
}

} // namespace

std::string out_of_memory_message(const forall_memory& memory, const tile_program& program) {
  if (memory.layout.out_of_memory.empty())
    return memory.layout.refusal ? memory.layout.refusal->message : std::string();
  const tile_out_of_memory& oom = memory.layout.out_of_memory.front();
  const auto& variables = memory.problem.variables;
  constexpr std::size_t kListed = 4; // the biggest of the peak live set, by name
  std::string live_set;
  for (std::size_t i = 0; i < oom.peak_live_set.size() && i < kListed; ++i) {
    const tile_variable& var = variables[oom.peak_live_set[i]];
    live_set += (live_set.empty() ? "'" : ", '") + var.name + "' " + memory_size_text(var.bytes);
  }
  if (oom.peak_live_set.size() > kListed)
    live_set += " and " + std::to_string(oom.peak_live_set.size() - kListed) + " more";
  const std::size_t others = memory.layout.out_of_memory.size() - 1;
  return "tile " + std::to_string(oom.tile) + " needs " + memory_size_text(oom.peak_live_bytes) +
         " live at once but has " + memory_size_text(memory.problem.params.sram_bytes) +
         " of SRAM; its peak live set, biggest first: " + live_set + "; " +
         smaller_block_advice(memory, oom.peak_live_set) + "; " +
         sharing_advice(memory, program, oom.peak_live_set) +
         (others == 0 ? std::string()
                      : "; " + std::to_string(others) +
                            (others == 1 ? " more tile does not fit" : " more tiles do not fit"));
}

} // namespace s2p::rt
