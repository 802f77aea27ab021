#include "warp/sim/tile_params.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace s2p::rt {

namespace {

void override_from(const char* variable, std::int64_t& field, std::int64_t minimum) {
  const char* text = std::getenv(variable);
  if (!text || !*text)
    return;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < minimum)
    throw std::invalid_argument(std::string(variable) + "='" + text +
                                "' must be an integer >= " + std::to_string(minimum));
  field = value;
}

} // namespace

sim::tile::TileParams tile_params_from_environment() {
  sim::tile::TileParams params;
  std::int64_t threads = params.hardware_threads;
  override_from("S2P_TILE_THREADS", threads, 1);
  params.hardware_threads = static_cast<int>(threads);
  override_from("S2P_TILE_SRAM", params.sram_bytes, 1);
  override_from("S2P_SYNC_LATENCY", params.sync_latency, 0);
  return params;
}

} // namespace s2p::rt
