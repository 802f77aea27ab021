// libFuzzer target: arbitrary bytes as a fabric file and as a schedule file. Malformed input must
// end in InputError (a message naming the field), never a crash, a hang or a sanitizer report;
// schedules that parse are checked on a small fabric, timing only.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "seq2par/sim/simulation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sim = s2p::sim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)sim::parse_fabric_text(text, "fuzz-fabric.json");
  } catch (const sim::InputError&) {
  }
  sim::ScheduleLimits limits;
  limits.max_tiles = 64;
  limits.max_expanded_supersteps = 256;
  try {
    sim::Schedule schedule = sim::parse_schedule_text(text, "fuzz-schedule.json", limits);
    sim::Fabric fabric = sim::default_fabric_for(schedule);
    fabric.chip.tiles = 64;
    sim::SimulationOptions options;
    options.move_data = false;
    options.stop_on_deadlock = false;
    options.max_host_bytes = 1 << 20;
    sim::Simulation simulation(std::move(schedule), std::move(fabric), options);
    simulation.run();
    (void)simulation.report_json().dump();
  } catch (const sim::InputError&) {
  }
  return 0;
}
