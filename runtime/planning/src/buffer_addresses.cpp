// Base addresses for a schedule's buffers (see <seq2par/planning/buffer_addresses.h>).
#include <seq2par/planning/buffer_addresses.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace s2p::rt {

namespace {

// Live for the whole kernel: later than any superstep a schedule has.
constexpr std::uint32_t kWholeKernel = std::numeric_limits<std::uint32_t>::max() - 1;
// The widest element type (f64, i64, u64): every buffer starts on an element boundary.
constexpr std::uint64_t kBufferAlignment = 8;

std::uint64_t tile_memory_of(const nlohmann::ordered_json& schedule, const sim::Fabric& fabric) {
  std::uint64_t sram = fabric.tile.sram_bytes;
  if (schedule.contains("fabric") && schedule["fabric"].contains("tile_sram_bytes") &&
      schedule["fabric"]["tile_sram_bytes"].is_number_integer())
    sram = std::max(sram, schedule["fabric"]["tile_sram_bytes"].get<std::uint64_t>());
  return sram;
}

live_range live_of(const nlohmann::ordered_json& buffer) {
  live_range live{0, kWholeKernel};
  if (!buffer.contains("live"))
    return live;
  const auto& l = buffer["live"];
  // Supersteps given as numbers (expressions of parameters keep the whole kernel: safe).
  if (l.contains("first") && l["first"].is_number_integer() && l["first"].get<std::int64_t>() >= 0)
    live.first = l["first"].get<std::uint32_t>();
  if (l.contains("last") && l["last"].is_number_integer() && l["last"].get<std::int64_t>() >= 0)
    live.last = l["last"].get<std::uint32_t>();
  return live;
}

// A buffer's bytes when the same on every tile: a number, or the name of a parameter that is
// one (the ring writer's `"bytes": "S"`). Other expressions may depend on the tile index.
std::optional<std::uint64_t> same_bytes_on_every_tile(const nlohmann::ordered_json& buffer,
                                                      const nlohmann::ordered_json& schedule) {
  const auto& bytes = buffer["bytes"];
  if (bytes.is_number_integer()) // signed or unsigned in the JSON value
    return bytes.get<std::int64_t>() < 0 ? std::nullopt : std::optional(bytes.get<std::uint64_t>());
  if (bytes.is_string() && schedule.contains("params")) {
    const auto& params = schedule["params"];
    const auto it = params.find(bytes.get<std::string>());
    if (it != params.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0)
      return it->get<std::uint64_t>();
  }
  return std::nullopt;
}

variable_kind kind_of(const nlohmann::ordered_json& buffer) {
  const std::string category = buffer.value("category", "data");
  if (category == "exchange")
    return variable_kind::receive_buffer;
  if (category == "shared")
    return variable_kind::shared_copy;
  if (category == "code")
    return variable_kind::code;
  return variable_kind::owned_block;
}

} // namespace

memory_layout assign_buffer_addresses(nlohmann::ordered_json& schedule, const sim::Fabric& fabric) {
  memory_problem problem;
  problem.params = {tile_memory_of(schedule, fabric), fabric.tile.bank_bytes,
                    fabric.tile.separate_banks};
  problem.tiles = 1;                      // the same buffers on every tile: one layout for all
  std::vector<std::size_t> placed_buffer; // schedule buffer index per variable
  auto& buffers = schedule["buffers"];
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const auto& buffer = buffers[b];
    const auto bytes = same_bytes_on_every_tile(buffer, schedule);
    if (!bytes)
      continue; // sizes may differ per tile: laid out by the simulator, as before
    problem.variables.push_back({buffer["name"].get<std::string>(), 0, *bytes, kBufferAlignment,
                                 kind_of(buffer), live_of(buffer)});
    placed_buffer.push_back(b);
  }
  memory_layout layout = allocate(problem);
  if (!layout.ok())
    return layout;
  for (std::size_t v = 0; v < placed_buffer.size(); ++v)
    buffers[placed_buffer[v]]["base"] = *layout.address[v];
  return layout;
}

} // namespace s2p::rt
