// A forall on the fabric simulator (`sim` backend): the fields are buffers in simulated tile
// memory, the moves exchange entries of the planning library's schedule (send cycles chosen
// so that no tile's port takes two streams at once), and the compute a codelet timed by what
// it reports.
#include "tile/runners.h"
#include "tile/sim/fabric_support.h"
#include "tile/owner_copy_summary.h"
#include "core/run_report.h"

#include <seq2par/planning/forall_memory.h>
#include <seq2par/planning/forall_schedule.h>
#include <seq2par/planning/placement.h>
#include <seq2par/sim/simulation.h>

#include <algorithm>
#include <string>

namespace s2p::rt {

void run_forall_on_fabric(const tile_kernel_info& info, const tile_program& program) {
  auto [fabric, fabric_file] = launch_fabric(info);
  const std::uint32_t tiles_per_chip =
      tiles_per_chip_for(fabric, static_cast<std::uint32_t>(info.tiles));
  const auto json = forall_schedule(info.name, info.tiles, program, fabric);
  write_schedule_copy(info.schedule ? info.schedule : info.name, json);
  // Tile memory is the fabric's: a launch whose tiles do not hold their fields is an error,
  // raised after the simulator has run it, so the report shows the launch (its memory peaks,
  // the simulator's own out-of-memory diagnostics) for the user to debug it.
  const forall_memory memory = check_forall_memory(
      program, {fabric.tile.sram_bytes, fabric.tile.bank_bytes, fabric.tile.separate_banks});
  sim::Schedule schedule = sim::parse_schedule(json, info.name);
  sim::SimulationOptions options;
  options.threads = fabric_sim_threads();
  if (!fabric_file.empty())
    options.fabric_source = fabric_file;
  sim::Simulation simulation(std::move(schedule), std::move(fabric), options);
  // A field's owned blocks are its buffer; the blocks a tile receives are a buffer of their own
  // (received_buffer_name), held by the tiles that receive any.
  auto field_bytes = [&program](int tile, int field, auto&& buffer_of) {
    const tile_field& f = program.fields[static_cast<std::size_t>(field)];
    const auto t = static_cast<std::size_t>(tile);
    const auto bytes = buffer_of(f.name);
    const bool receives =
        !f.shared && t < f.received_bytes_per_tile.size() && f.received_bytes_per_tile[t] > 0;
    return tile_bytes{bytes.data(), bytes.size(),
                      receives ? buffer_of(received_buffer_name(f.name)).data() : nullptr};
  };
  auto memory_of = [&](int tile) {
    return tile_memory([&simulation, &field_bytes, tile](int field) {
      return field_bytes(tile, field, [&](const std::string& name) {
        return simulation.buffer(static_cast<sim::TileId>(tile), name);
      });
    });
  };
  for (int t = 0; t < info.tiles; ++t)
    program.load(t, memory_of(t));
  // The codelets run on this thread: afterwards it is back outside any tile.
  struct back_outside_tiles {
    ~back_outside_tiles() { s2p::detail::current_tile = s2p::detail::current_chip = 0; }
  } reset_indices;
  simulation.on_compute("forall", [&](sim::TileContext& context) -> sim::Cycles {
    s2p::detail::current_tile = static_cast<int>(context.tile);
    s2p::detail::current_chip = static_cast<int>(context.tile / tiles_per_chip);
    const tile_memory memory = [&context, &field_bytes](int field) {
      return field_bytes(static_cast<int>(context.tile), field,
                         [&](const std::string& name) { return context.buffer(name); });
    };
    return static_cast<sim::Cycles>(program.compute(static_cast<int>(context.tile), memory));
  });
  simulation.run();
  const auto record = [&] {
    auto report = simulation.report_json();
    report["owner_copy"] = owner_copy_summary(info, program);
    if (!program.shared.empty())
      report["shared_structures"] = shared_structures_summary(program);
    record_fabric_launch(info.name, info.source, report, info.schedule);
  };
  if (!memory.ok()) {
    record(); // the outputs are not stored: the program must not go on with them
    write_report_files();
    throw std::runtime_error(std::string("seq2par: kernel '") + info.name +
                             "' on the fabric simulator: out of tile memory: " +
                             out_of_memory_message(memory, program) +
                             " (S2P_REPORT has the simulator's report of this launch)");
  }
  throw_on_errors(simulation, info.name);
  for (int t = 0; t < info.tiles; ++t)
    program.store(t, memory_of(t));
  record();
}

} // namespace s2p::rt
