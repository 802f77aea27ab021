// Helpers shared by the simulator tests: small fabrics, schedules written inline, diagnostics
// queries.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/fabric.h"
#include "seq2par/sim/schedule.h"
#include "seq2par/sim/simulation.h"

namespace s2p_test {

using Json = nlohmann::ordered_json;
namespace sim = s2p::sim;

/// One chip of `tiles` tiles (otherwise the default parameters), `chips` chips.
sim::Fabric small_fabric(std::uint32_t tiles = 16, std::uint32_t chips = 1);
/// The same from sim::legacy_fabric(): the model before calibration, for tests of its
/// mechanisms (the acknowledgement window, one grant at a time) and the numbers they pin.
sim::Fabric small_legacy_fabric(std::uint32_t tiles = 16, std::uint32_t chips = 1);

/// A schedule object with the required header fields.
Json schedule_json(std::uint32_t tiles, Json buffers, Json supersteps);

/// Parses and simulates; timing-only unless `move_data`.
sim::Simulation simulate(const Json& schedule, const sim::Fabric& fabric, bool move_data = false,
                         bool stop_on_deadlock = true);

/// The diagnostic of `kind`, or nullptr.
const sim::Diagnostic* find(const sim::Diagnostics& diagnostics, const std::string& kind);
/// Every diagnostic as text, one per line (for failure messages).
std::string all_text(const sim::Diagnostics& diagnostics);

/// The message of the InputError thrown by `f`, or "" when nothing is thrown.
template <class F> std::string input_error(F f) {
  try {
    f();
  } catch (const sim::InputError& error) {
    return error.what();
  }
  return "";
}

} // namespace s2p_test
