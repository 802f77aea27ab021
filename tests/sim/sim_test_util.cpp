#include "sim_test_util.h"

namespace s2p_test {

namespace {

sim::Fabric small(sim::Fabric fabric, std::uint32_t tiles, std::uint32_t chips) {
  fabric.chips = chips;
  fabric.chip.tiles = tiles;
  fabric.chip.tiles_per_column = std::min<std::uint32_t>(tiles, 64);
  return fabric;
}

} // namespace

sim::Fabric small_fabric(std::uint32_t tiles, std::uint32_t chips) {
  return small(sim::default_fabric(), tiles, chips);
}

sim::Fabric small_legacy_fabric(std::uint32_t tiles, std::uint32_t chips) {
  return small(sim::legacy_fabric(), tiles, chips);
}

Json schedule_json(std::uint32_t tiles, Json buffers, Json supersteps) {
  Json json;
  json["format"] = "seq2par.schedule/1";
  json["kernel"] = "test";
  json["tiles"] = tiles;
  json["buffers"] = std::move(buffers);
  json["supersteps"] = std::move(supersteps);
  return json;
}

sim::Simulation simulate(const Json& schedule, const sim::Fabric& fabric, bool move_data,
                         bool stop_on_deadlock) {
  sim::SimulationOptions options;
  options.move_data = move_data;
  options.stop_on_deadlock = stop_on_deadlock;
  sim::Simulation simulation(sim::parse_schedule(schedule, "test.json"), fabric, options);
  simulation.run();
  return simulation;
}

const sim::Diagnostic* find(const sim::Diagnostics& diagnostics, const std::string& kind) {
  for (const auto& d : diagnostics.items()) {
    if (d.kind == kind) {
      return &d;
    }
  }
  return nullptr;
}

std::string all_text(const sim::Diagnostics& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics.items()) {
    text += d.to_string() + "\n";
  }
  return text;
}

} // namespace s2p_test
