// Base addresses for a schedule's buffers (see <seq2par/planning/buffer_addresses.h>).
#include <seq2par/planning/buffer_addresses.h>

#include <seq2par/sim/schedule.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace s2p::rt {

namespace {

// Live for the whole kernel: later than any superstep a schedule has.
constexpr std::uint32_t kWholeKernel = std::numeric_limits<std::uint32_t>::max() - 1;
// A buffer starts on a boundary of its element type (as C's alignof: every element type's
// size is its alignment), so a u32 buffer of an odd number of elements leaves no padding
// before the next one. Without a known type: the widest element (f64, i64, u64).
constexpr std::uint64_t kWidestElement = 8;

std::uint64_t alignment_of(const nlohmann::ordered_json& buffer) {
  if (!buffer.contains("type") || !buffer["type"].is_string())
    return kWidestElement;
  const auto type = sim::element_type_from_string(buffer["type"].get<std::string>());
  return type ? sim::element_size(*type) : kWidestElement;
}

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
  if (category == "received")
    return variable_kind::received_block;
  if (category == "shared")
    return variable_kind::shared_copy;
  if (category == "code")
    return variable_kind::code;
  if (category == "pool")
    return variable_kind::pool;
  return variable_kind::owned_block;
}

// The tiles a buffer is held by: its `tiles` list, or every tile (also when the list is not plain
// numbers: holding more is the safe side).
std::vector<std::uint32_t> holders_of(const nlohmann::ordered_json& buffer, std::uint32_t tiles) {
  std::vector<std::uint32_t> holders;
  if (buffer.contains("tiles") && buffer["tiles"].is_array()) {
    for (const auto& t : buffer["tiles"]) {
      if (!t.is_number_integer() || t.get<std::int64_t>() < 0 || t.get<std::int64_t>() >= tiles)
        return holders_of(nlohmann::ordered_json::object(), tiles);
      holders.push_back(t.get<std::uint32_t>());
    }
    return holders;
  }
  for (std::uint32_t t = 0; t < tiles; ++t)
    holders.push_back(t);
  return holders;
}

struct placed_buffers {
  memory_problem problem;
  std::vector<std::size_t> buffer_of; // schedule buffer index per variable
};

// The buffers as a problem over tile *groups*: tiles holding the same buffers share one layout.
// Each buffer is one equal-address set over the groups holding it, so its base is one number for
// every tile (a multicast's receivers take it at one address), while a buffer only some tiles
// hold (a master's copy) takes room only on their groups.
placed_buffers buffer_problem(const nlohmann::ordered_json& schedule, const memory_params& params) {
  placed_buffers placed;
  memory_problem& problem = placed.problem;
  problem.params = params;
  const auto& buffers = schedule["buffers"];
  const std::uint32_t tiles = schedule.contains("tiles") && schedule["tiles"].is_number_integer() &&
                                      schedule["tiles"].get<std::int64_t>() > 0
                                  ? schedule["tiles"].get<std::uint32_t>()
                                  : 1;
  std::vector<std::vector<std::size_t>> held(tiles); // per tile, the buffers it holds
  std::vector<std::optional<std::uint64_t>> bytes(buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    bytes[b] = same_bytes_on_every_tile(buffers[b], schedule);
    if (bytes[b]) // sizes may differ per tile otherwise: laid out by the simulator, as before
      for (const std::uint32_t t : holders_of(buffers[b], tiles))
        held[t].push_back(b);
  }
  std::map<std::vector<std::size_t>, std::uint32_t> group_of;
  for (const auto& set : held)
    if (!set.empty())
      group_of.emplace(set, static_cast<std::uint32_t>(group_of.size()));
  problem.tiles = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(group_of.size()));
  std::vector<equal_address_set> sets(buffers.size());
  for (const auto& [set, group] : group_of)
    for (const std::size_t b : set) {
      sets[b].members.push_back(problem.variables.size());
      problem.variables.push_back({buffers[b]["name"].get<std::string>(), group, *bytes[b],
                                   alignment_of(buffers[b]), kind_of(buffers[b]), live_of(buffers[b])});
      placed.buffer_of.push_back(b);
    }
  for (auto& set : sets)
    if (set.members.size() > 1)
      problem.equal_address.push_back(std::move(set));
  return placed;
}

} // namespace

memory_layout assign_buffer_addresses(nlohmann::ordered_json& schedule, const sim::Fabric& fabric) {
  const placed_buffers placed = buffer_problem(
      schedule, {tile_memory_of(schedule, fabric), fabric.tile.bank_bytes,
                 fabric.tile.separate_banks});
  memory_layout layout = allocate(placed.problem);
  // A set split over groups would need a base per tile: those tiles do not fit as one.
  if (!layout.ok() || !layout.splits.empty())
    return layout;
  auto& buffers = schedule["buffers"];
  for (std::size_t v = 0; v < placed.buffer_of.size(); ++v)
    buffers[placed.buffer_of[v]]["base"] = *layout.address[v];
  return layout;
}

} // namespace s2p::rt
