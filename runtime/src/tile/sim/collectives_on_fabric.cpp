// Ring collectives on the fabric simulator (`sim` backend): the planning library's ring
// schedule, run on the rows' data in simulated tile memory.
#include "tile/runners.h"
#include "tile/sim/fabric_support.h"
#include "core/run_report.h"

#include <seq2par/planning/ring_schedule.h>
#include <seq2par/sim/simulation.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace s2p::rt {

void run_collective_on_fabric(const tile_kernel_info& info, const collective_args& args) {
  ring_launch launch;
  launch.kernel = info.name;
  launch.tiles = static_cast<std::uint32_t>(info.tiles);
  launch.kind = args.kind;
  // Generated code names these as schedules spell them (see collective_args).
  const auto type = sim::element_type_from_string(args.element_type);
  if (!type)
    throw std::invalid_argument(std::string("s2p::collective: element type '") +
                                args.element_type + "' is not one schedules name");
  launch.element_type = *type;
  if (args.kind != collective_kind::all_gather) { // all-gather's "copy" is not read
    const auto op = sim::combine_op_from_string(args.op);
    if (!op)
      throw std::invalid_argument(std::string("s2p::collective: combine '") + args.op +
                                  "' is not one schedules name");
    launch.op = *op;
  }
  launch.bytes_per_tile = static_cast<std::uint64_t>(args.elements_per_tile) * args.element_bytes;
  launch.partials = args.partials;
  auto [fabric, fabric_file] = launch_fabric(info);
  std::string out_of_memory;
  const auto json = ring_schedule(launch, fabric, fabric_file, &out_of_memory);
  sim::SimulationOptions options;
  options.threads = fabric_sim_threads();
  if (!fabric_file.empty())
    options.fabric_source = fabric_file;
  write_schedule_copy(info.schedule ? info.schedule : info.name, json);
  sim::Schedule schedule = sim::parse_schedule(json, info.name);
  sim::Simulation simulation(std::move(schedule), std::move(fabric), options);
  const std::size_t row_bytes =
      static_cast<std::size_t>(args.elements_per_tile) * args.element_bytes;
  auto* rows = static_cast<std::byte*>(args.rows);
  for (int tile = 0; tile < info.tiles; ++tile) {
    auto buffer = simulation.buffer(static_cast<sim::TileId>(tile), "data");
    std::memcpy(buffer.data(), rows + static_cast<std::size_t>(tile) * row_bytes, row_bytes);
  }
  simulation.run();
  if (!out_of_memory.empty()) {
    // As a forall's: the simulator has run the launch and the report shows it (its tiles'
    // memory peaks, its own out-of-memory diagnostics); the rows are not written back.
    record_fabric_launch(info.name, info.source, simulation.report_json(), info.schedule);
    write_report_files();
    throw std::runtime_error(std::string("seq2par: kernel '") + info.name +
                             "' on the fabric simulator: out of tile memory: " + out_of_memory +
                             " (S2P_REPORT has the simulator's report of this launch)");
  }
  throw_on_errors(simulation, info.name);
  for (int tile = 0; tile < info.tiles; ++tile) {
    const auto buffer = simulation.buffer(static_cast<sim::TileId>(tile), "data");
    std::memcpy(rows + static_cast<std::size_t>(tile) * row_bytes, buffer.data(), row_bytes);
  }
  record_fabric_launch(info.name, info.source, simulation.report_json(), info.schedule);
}

} // namespace s2p::rt
