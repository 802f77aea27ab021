// Runs a multi-tile program (load -> exchange -> compute -> store) on a backend. On the
// fabric simulator the fields are buffers in simulated tile memory, the moves exchange
// entries (send cycles chosen so that no tile's port takes two streams at once), and the
// compute a codelet timed by what it reports; on threads each tile is a host thread and
// the exchange copies between the tiles' buffers between two barriers; on mpi see
// mpi/mpi_tile_program.cpp.
#include "multitile/fabric_support.h"
#include "multitile/owner_copy_summary.h"
#include "mpi/mpi_backend.h"
#include "sim/run_report.h"

#include <seq2par/runtime.h>

#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <thread>

#if S2P_HAVE_FABRIC_SIM
#include <seq2par/sim/simulation.h>
#include <seq2par/tile_schedules.h>
#endif

namespace s2p::rt {

namespace {

void run_on_threads(const tile_kernel_info& info, const tile_program& program) {
  const std::size_t tiles = static_cast<std::size_t>(info.tiles);
  std::vector<std::vector<std::vector<std::byte>>> memory(tiles);
  for (std::size_t t = 0; t < tiles; ++t)
    for (const auto& f : program.fields)
      memory[t].emplace_back(static_cast<std::size_t>(f.bytes_per_tile[t]));
  std::vector<std::vector<const tile_move*>> incoming(tiles), returning(tiles);
  for (const auto& m : program.moves)
    incoming[static_cast<std::size_t>(m.to_tile)].push_back(&m);
  for (const auto& m : program.returns)
    returning[static_cast<std::size_t>(m.to_tile)].push_back(&m);
  // The exchange on threads: each tile copies what comes to it out of the senders' buffers.
  auto copy_incoming = [&memory](const std::vector<const tile_move*>& moves) {
    for (const tile_move* m : moves)
      std::memcpy(
          memory[static_cast<std::size_t>(m->to_tile)][static_cast<std::size_t>(m->field)].data() +
              m->to_offset,
          memory[static_cast<std::size_t>(m->from_tile)][static_cast<std::size_t>(m->field)]
                  .data() +
              m->from_offset,
          static_cast<std::size_t>(m->bytes));
  };
  std::barrier sync(static_cast<std::ptrdiff_t>(tiles));
  std::vector<std::exception_ptr> errors(tiles);
  const std::vector<int> chip = forall_chips(info);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < tiles; ++t) {
    threads.emplace_back([&, t] {
      s2p::detail::current_tile = static_cast<int>(t);
      s2p::detail::current_chip = chip[t];
      const tile_memory mine = [&](int field) {
        auto& bytes = memory[t][static_cast<std::size_t>(field)];
        return tile_bytes{bytes.data(), bytes.size()};
      };
      // Every tile reaches every barrier, even after an error, so nobody waits forever.
      auto guarded = [&](auto&& step) {
        if (errors[t])
          return;
        try {
          step();
        } catch (...) {
          errors[t] = std::current_exception();
        }
      };
      guarded([&] { program.load(static_cast<int>(t), mine); });
      sync.arrive_and_wait();
      guarded([&] { copy_incoming(incoming[t]); });
      sync.arrive_and_wait();
      guarded([&] { program.compute(static_cast<int>(t), mine); });
      sync.arrive_and_wait();
      guarded([&] { copy_incoming(returning[t]); }); // stolen tasks' results, then store
      guarded([&] { program.store(static_cast<int>(t), mine); });
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (const auto& error : errors)
    if (error)
      std::rethrow_exception(error);
}

#if S2P_HAVE_FABRIC_SIM
void run_on_fabric(const tile_kernel_info& info, const tile_program& program) {
  auto [fabric, fabric_file] = launch_fabric(info);
  const std::uint32_t tiles_per_chip =
      tiles_per_chip_for(fabric, static_cast<std::uint32_t>(info.tiles));
  const auto json = forall_schedule(info.name, info.tiles, program, fabric, fabric_file.empty());
  write_schedule_copy(info.schedule ? info.schedule : info.name, json);
  sim::Schedule schedule = sim::parse_schedule(json, info.name);
  sim::SimulationOptions options;
  options.threads = fabric_sim_threads();
  if (!fabric_file.empty()) {
    options.fabric_source = fabric_file;
  } else if (schedule.tile_sram_bytes) {
    fabric.tile.sram_bytes = std::max(fabric.tile.sram_bytes, *schedule.tile_sram_bytes);
    options.fabric_source = "built-in default with " + std::to_string(*schedule.tile_sram_bytes) +
                            "-byte tiles (the fields' size)";
  }
  sim::Simulation simulation(std::move(schedule), std::move(fabric), options);
  auto memory_of = [&](int tile) {
    return tile_memory([&simulation, &program, tile](int field) {
      auto bytes = simulation.buffer(static_cast<sim::TileId>(tile),
                                     program.fields[static_cast<std::size_t>(field)].name);
      return tile_bytes{bytes.data(), bytes.size()};
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
    const tile_memory memory = [&context, &program](int field) {
      auto bytes = context.buffer(program.fields[static_cast<std::size_t>(field)].name);
      return tile_bytes{bytes.data(), bytes.size()};
    };
    return static_cast<sim::Cycles>(program.compute(static_cast<int>(context.tile), memory));
  });
  simulation.run();
  throw_on_errors(simulation, info.name);
  for (int t = 0; t < info.tiles; ++t)
    program.store(t, memory_of(t));
  auto report = simulation.report_json();
  report["owner_copy"] = owner_copy_summary(info, program);
  record_fabric_launch(info.name, info.source, report);
}
#endif

} // namespace

work_stealing_mode work_stealing_setting() {
  const char* text = std::getenv("S2P_WORK_STEALING");
  if (!text || !*text)
    return work_stealing_mode::off;
  const std::string value = text;
  if (value == "1" || value == "on" || value == "true")
    return work_stealing_mode::cost_model;
  if (value == "greedy")
    return work_stealing_mode::greedy;
  if (value == "0" || value == "off" || value == "false")
    return work_stealing_mode::off;
  throw std::invalid_argument(
      "seq2par: S2P_WORK_STEALING must be 1/on/true, greedy, or 0/off/false, not '" + value + "'");
}

// The same on both backends, so they make the same decisions.
StealCosts work_stealing_costs([[maybe_unused]] const tile_kernel_info& info) {
  StealCosts costs;
#if S2P_HAVE_FABRIC_SIM
  const sim::Fabric fabric = launch_fabric(info).fabric;
  costs.bytes_per_cycle = fabric.exchange.send_bytes_per_cycle;
  const std::uint32_t tiles_per_chip =
      tiles_per_chip_for(fabric, static_cast<std::uint32_t>(info.tiles));
  const bool chips = tiles_per_chip < static_cast<std::uint32_t>(info.tiles);
  if (chips)
    costs.tiles_per_chip = tiles_per_chip;
  costs.returns_barrier_cycles =
      static_cast<std::int64_t>(chips ? fabric.sync.cross_chip_cycles : fabric.sync.on_chip_cycles);
#endif
  costs.free_transfers = work_stealing_setting() == work_stealing_mode::greedy;
  return costs;
}

void run_tile_program(const tile_kernel_info& info, const tile_program& program) {
  dispatch_multi_tile(
      info, [&] { run_on_threads(info, program); }, [&] { run_tile_program_on_mpi(info, program); },
      [&] {
#if S2P_HAVE_FABRIC_SIM
        run_on_fabric(info, program);
#endif
      });
}

} // namespace s2p::rt
