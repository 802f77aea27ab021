// A forall's owner-copy program as seq2par.schedule/1 (see
// <seq2par/planning/forall_schedule.h>), as the runtime runs it and as seq2par writes it as a
// template at transpile time.
#include <seq2par/planning/forall_schedule.h>

#include <seq2par/planning/buffer_addresses.h>
#include <seq2par/planning/placement.h>

#include <algorithm>
#include <array>
#include <map>
#include <queue>
#include <string>
#include <tuple>

namespace s2p::rt {

namespace {

// "Cd 96x96 f64, Ad 96x96 f64": which fields, at which extents, the schedule is for.
std::string describe_fields(const tile_program& program) {
  std::string text;
  for (const auto& field : program.fields) {
    text += (text.empty() ? "" : ", ") + field.name + " ";
    for (std::size_t d = 0; d < field.extent.size(); ++d) {
      if (d) // not ("x" + std::to_string(...)): GCC 12 misreads it (-Wrestrict, GCC bug 105651)
        text += 'x';
      text += std::to_string(field.extent[d]);
    }
    text += " " + field.element_type;
  }
  return text;
}

struct timed_move {
  tile_move move;
  std::int64_t cycle = 0;
};

// Send cycles such that each tile sends one stream at a time and receives one at a time.
// List scheduling: the move that can start earliest goes next (ties in list order), so one
// busy port does not hold back moves between idle ones. Moves between chips are external:
// the XB paces them, so only the sender's port is booked. Returned in the order scheduled.
std::vector<timed_move> schedule_moves(const std::vector<tile_move>& moves, std::size_t tiles,
                                       const sim::Fabric& fabric, std::uint32_t tiles_per_chip) {
  std::vector<std::int64_t> send_free(tiles, 0), receive_free(tiles, 0);
  const std::int64_t rate = fabric.exchange.send_bytes_per_cycle;
  auto external = [&](const tile_move& m) {
    return static_cast<std::uint32_t>(m.from_tile) / tiles_per_chip !=
           static_cast<std::uint32_t>(m.to_tile) / tiles_per_chip;
  };
  auto latency = [&](const tile_move& m) {
    return static_cast<std::int64_t>(
        fabric.on_chip_latency(static_cast<std::uint32_t>(m.from_tile) % tiles_per_chip,
                               static_cast<std::uint32_t>(m.to_tile) % tiles_per_chip));
  };
  auto earliest = [&](const tile_move& m) {
    const std::int64_t sender = send_free[static_cast<std::size_t>(m.from_tile)];
    return external(m)
               ? sender
               : std::max<std::int64_t>(sender, receive_free[static_cast<std::size_t>(m.to_tile)] -
                                                    latency(m));
  };
  // A heap of (earliest start when last looked at, list index). Ports only get busier, so a
  // stored start is a lower bound: the top is taken if its start is still current and put
  // back with the new one otherwise. That picks what a scan of every pending move would
  // (earliest start, then list order) in O(n log n).
  using entry = std::pair<std::int64_t, std::size_t>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> pending;
  for (std::size_t k = 0; k < moves.size(); ++k)
    pending.push({earliest(moves[k]), k});
  std::vector<timed_move> timed;
  timed.reserve(moves.size());
  while (!pending.empty()) {
    const auto [stored, k] = pending.top();
    pending.pop();
    const tile_move& m = moves[k];
    const std::int64_t start = earliest(m);
    if (start != stored) {
      pending.push({start, k});
      continue;
    }
    const std::int64_t duration = (m.bytes + rate - 1) / rate;
    send_free[static_cast<std::size_t>(m.from_tile)] = start + duration;
    if (!external(m))
      receive_free[static_cast<std::size_t>(m.to_tile)] = start + latency(m) + duration;
    timed.push_back({m, start});
  }
  return timed;
}

// One template for all tiles (tile-indexed exchange entries): a run of moves in which the
// sender, the receiver, both offsets and the send cycle each step by a constant (same field,
// same size) becomes one send entry and one receive entry whose fields are expressions of the
// tile index.
// Returns groups of indices into `moves`; runs shorter than three stay single moves.
std::vector<std::vector<std::size_t>> progressions(const std::vector<timed_move>& moves) {
  using key = std::array<std::int64_t, 7>;
  auto key_of = [](const timed_move& t) {
    return key{t.move.field,       t.move.bytes,     t.move.from_tile, t.move.to_tile,
               t.move.from_offset, t.move.to_offset, t.cycle};
  };
  std::map<key, std::size_t> index_of; // every move by its key (`taken` says if it is used)
  for (std::size_t k = 0; k < moves.size(); ++k)
    index_of.emplace(key_of(moves[k]), k);
  // By field, size and sender: a run's next member comes from a later sender.
  std::vector<std::size_t> order(moves.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(moves[a].move.field, moves[a].move.bytes, moves[a].move.from_tile, a) <
           std::tie(moves[b].move.field, moves[b].move.bytes, moves[b].move.from_tile, b);
  });
  std::vector<bool> taken(moves.size(), false);
  std::vector<std::vector<std::size_t>> groups;
  auto chain_from = [&](std::size_t first, std::size_t second) {
    key step = key_of(moves[second]), at = key_of(moves[second]);
    const key base = key_of(moves[first]);
    for (std::size_t d = 0; d < step.size(); ++d)
      step[d] -= base[d];
    std::vector<std::size_t> chain{first, second};
    if (step[3] == 0) // one receiver twice: not a tile set
      return chain;
    while (true) {
      for (std::size_t d = 2; d < at.size(); ++d)
        at[d] += step[d];
      const auto found = index_of.find(at);
      if (found == index_of.end() || taken[found->second])
        return chain;
      chain.push_back(found->second);
    }
  };
  constexpr std::size_t kCandidates = 8; // second members tried per run
  for (std::size_t p = 0; p < order.size(); ++p) {
    const std::size_t first = order[p];
    if (taken[first])
      continue;
    taken[first] = true;
    std::vector<std::size_t> best{first};
    // Second members: the next sender's moves of the same field and size.
    std::size_t q = p + 1;
    while (q < order.size() && moves[order[q]].move.from_tile == moves[first].move.from_tile)
      ++q;
    const int next_sender = q < order.size() ? moves[order[q]].move.from_tile : -1;
    for (std::size_t tried = 0; q < order.size() && tried < kCandidates; ++q) {
      const tile_move& m = moves[order[q]].move;
      if (m.field != moves[first].move.field || m.bytes != moves[first].move.bytes ||
          m.from_tile != next_sender)
        break;
      if (taken[order[q]])
        continue;
      ++tried;
      auto chain = chain_from(first, order[q]);
      if (chain.size() > best.size())
        best = std::move(chain);
    }
    if (best.size() < 3)
      best.resize(1);
    for (const std::size_t k : best)
      taken[k] = true;
    groups.push_back(std::move(best));
  }
  // In the order the moves were scheduled (the first member's place).
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return groups;
}

// "base + k * step" (a number when step is 0).
nlohmann::ordered_json affine(std::int64_t base, std::int64_t step) {
  if (step == 0)
    return base;
  const std::int64_t size = step < 0 ? -step : step;
  return std::to_string(base) + (step < 0 ? " - " : " + ") +
         (size == 1 ? "k" : "k * " + std::to_string(size));
}

// Exchange entries for `moves` (with send cycles, see schedule_moves): a send and a receive
// entry per progression of moves, or per single move.
nlohmann::ordered_json exchange_entries(const std::vector<tile_move>& moves,
                                        const tile_program& program, const sim::Fabric& fabric,
                                        std::uint32_t tiles_per_chip, const std::string& what) {
  const auto tiles = program.fields.empty() ? 0 : program.fields.front().bytes_per_tile.size();
  const std::vector<timed_move> timed = schedule_moves(moves, tiles, fabric, tiles_per_chip);
  nlohmann::ordered_json exchange = nlohmann::ordered_json::array();
  for (const auto& group : progressions(timed)) {
    const timed_move& first = timed[group.front()];
    const tile_move& m = first.move;
    const std::string& buffer = program.fields[static_cast<std::size_t>(m.field)].name;
    if (group.size() == 1) {
      const std::string name = what + " " + std::to_string(group.front());
      exchange.push_back({{"kind", "send"},
                          {"name", name},
                          {"tiles", {m.from_tile}},
                          {"buffer", buffer},
                          {"offset", m.from_offset},
                          {"bytes", m.bytes},
                          {"to", m.to_tile},
                          {"cycle", first.cycle}});
      exchange.push_back({{"kind", "recv"},
                          {"name", name},
                          {"tiles", {m.to_tile}},
                          {"from", m.from_tile},
                          {"buffer", buffer},
                          {"offset", m.to_offset},
                          {"bytes", m.bytes}});
      continue;
    }
    // Member k: sender from + k*df, receiver to + k*dt, and so on. The sender finds k from
    // its index, the receiver from its own; a tag keeps the run's transfers paired.
    const tile_move& second = timed[group[1]].move;
    const std::int64_t df = second.from_tile - m.from_tile, dt = second.to_tile - m.to_tile;
    const std::int64_t count = static_cast<std::int64_t>(group.size());
    const std::int64_t last_to = m.to_tile + (count - 1) * dt;
    const std::string name =
        what + "s " + std::to_string(group.front()) + " (" + std::to_string(count) + " tiles)";
    exchange.push_back(
        {{"kind", "send"},
         {"name", name},
         {"tiles", {{"first", m.from_tile}, {"count", count}, {"stride", df}}},
         {"let", {{"k", "(tile - " + std::to_string(m.from_tile) + ") / " + std::to_string(df)}}},
         {"buffer", buffer},
         {"offset", affine(m.from_offset, second.from_offset - m.from_offset)},
         {"bytes", m.bytes},
         {"to", affine(m.to_tile, dt)},
         {"cycle", affine(first.cycle, timed[group[1]].cycle - first.cycle)},
         {"tag", name}});
    exchange.push_back(
        {{"kind", "recv"},
         {"name", name},
         {"tiles",
          {{"first", std::min(m.to_tile, static_cast<int>(last_to))},
           {"count", count},
           {"stride", dt > 0 ? dt : -dt}}},
         {"let",
          {{"k", dt > 0 ? "(tile - " + std::to_string(m.to_tile) + ") / " + std::to_string(dt)
                        // '(', not "(": GCC bug 105651 (a false -Wrestrict)
                        : '(' + std::to_string(m.to_tile) + " - tile) / " + std::to_string(-dt)}}},
         {"from", affine(m.from_tile, df)},
         {"buffer", buffer},
         {"offset", affine(m.to_offset, second.to_offset - m.to_offset)},
         {"bytes", m.bytes},
         {"tag", name}});
  }
  return exchange;
}

// The forall's compute: one entry per distinct estimate, over the tiles with that estimate
// (the codelet reports the real cycles when it runs; the estimate leaves out owner lookups).
nlohmann::ordered_json compute_entries(const tile_program& program) {
  std::map<std::int64_t, std::vector<int>> tiles_by_cycles;
  for (std::size_t t = 0; t < program.compute_estimate.size(); ++t)
    tiles_by_cycles[program.compute_estimate[t]].push_back(static_cast<int>(t));
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  if (tiles_by_cycles.size() <= 1) {
    const std::int64_t cycles = tiles_by_cycles.empty() ? 0 : tiles_by_cycles.begin()->first;
    entries.push_back({{"name", "forall"}, {"codelet", "forall"}, {"cycles", cycles}});
    return entries;
  }
  for (const auto& [cycles, tiles] : tiles_by_cycles)
    entries.push_back(
        {{"name", "forall"}, {"codelet", "forall"}, {"tiles", tiles}, {"cycles", cycles}});
  return entries;
}

// A shared read-only structure's multicast: the master's moves of that field (one per
// receiver) as one send to every receiver and one receive on each, into the same offset of the
// structure's buffer (its compute-time address on every receiver). Multicasts go one after
// another: the next starts once the previous one has left its master's port and reached its
// farthest receiver, so no port ever carries two streams.
nlohmann::ordered_json multicast_entries(const std::vector<tile_move>& moves,
                                         const tile_program& program, const sim::Fabric& fabric,
                                         std::uint32_t tiles_per_chip) {
  std::map<std::pair<int, int>, std::vector<int>> receivers; // (field, master) -> tiles
  std::map<std::pair<int, int>, std::int64_t> bytes;
  for (const auto& m : moves) {
    receivers[{m.field, m.from_tile}].push_back(m.to_tile);
    bytes[{m.field, m.from_tile}] = m.bytes;
  }
  nlohmann::ordered_json exchange = nlohmann::ordered_json::array();
  const std::int64_t rate = fabric.exchange.send_bytes_per_cycle;
  std::int64_t cycle = 0;
  for (const auto& [key, to] : receivers) {
    const std::string& buffer = program.fields[static_cast<std::size_t>(key.first)].name;
    const std::string name = "multicast " + buffer;
    const std::int64_t start = cycle;
    std::int64_t farthest = 0;
    for (const int r : to)
      farthest = std::max<std::int64_t>(
          farthest, static_cast<std::int64_t>(fabric.on_chip_latency(
                        static_cast<std::uint32_t>(key.second) % tiles_per_chip,
                        static_cast<std::uint32_t>(r) % tiles_per_chip)));
    cycle += (bytes[key] + rate - 1) / rate + farthest;
    exchange.push_back({{"kind", "send"},
                        {"name", name},
                        {"tiles", {key.second}},
                        {"buffer", buffer},
                        {"offset", 0},
                        {"bytes", bytes[key]},
                        {"to", to},
                        {"cycle", start},
                        {"tag", name}});
    exchange.push_back({{"kind", "recv"},
                        {"name", name},
                        {"tiles", to},
                        {"from", key.second},
                        {"buffer", buffer},
                        {"offset", 0},
                        {"bytes", bytes[key]},
                        {"tag", name}});
  }
  return exchange;
}

nlohmann::ordered_json buffer_entry(const tile_field& f) {
  const std::int64_t most =
      std::max<std::int64_t>(1, *std::max_element(f.bytes_per_tile.begin(), f.bytes_per_tile.end()));
  nlohmann::ordered_json buffer{{"name", f.name},
                                {"type", f.element_type},
                                {"bytes", most},
                                {"init", "zero"},
                                {"category", f.shared ? "shared" : "data"}};
  std::vector<int> holders;
  for (std::size_t t = 0; t < f.bytes_per_tile.size(); ++t)
    if (f.bytes_per_tile[t] > 0)
      holders.push_back(static_cast<int>(t));
  if (f.shared && holders.size() < f.bytes_per_tile.size()) // a master's copy, not received here
    buffer["tiles"] = holders;
  return buffer;
}

} // namespace

nlohmann::ordered_json forall_schedule(const std::string& kernel, int tile_count,
                                       const tile_program& program, const sim::Fabric& fabric) {
  const auto tiles = static_cast<std::uint32_t>(tile_count);
  const std::uint32_t chips = chips_for(fabric, tiles, false);
  const std::uint32_t tiles_per_chip = tiles_per_chip_for(fabric, tiles);
  nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
  for (const auto& f : program.fields)
    buffers.push_back(buffer_entry(f));
  std::vector<tile_move> moves, multicasts;
  for (const auto& m : program.moves)
    (program.fields[static_cast<std::size_t>(m.field)].shared ? multicasts : moves).push_back(m);
  const nlohmann::ordered_json exchange =
      exchange_entries(moves, program, fabric, tiles_per_chip, "move");
  const nlohmann::ordered_json returns =
      exchange_entries(program.returns, program, fabric, tiles_per_chip, "stolen result");
  const nlohmann::ordered_json fabric_summary{{"chips", chips}, {"tiles_per_chip", tiles_per_chip}};
  nlohmann::ordered_json supersteps = nlohmann::ordered_json::array();
  if (!multicasts.empty())
    supersteps.push_back({{"name", "shared structures (multicast from masters)"},
                          {"sync", "all"},
                          {"exchange", multicast_entries(multicasts, program, fabric,
                                                         tiles_per_chip)}});
  if (!exchange.empty())
    supersteps.push_back({{"name", "owner-copy moves"}, {"sync", "all"}, {"exchange", exchange}});
  supersteps.push_back({{"name", "forall"}, {"compute", compute_entries(program)}});
  if (!returns.empty())
    supersteps.push_back(
        {{"name", "work-stealing returns"}, {"sync", "all"}, {"exchange", returns}});
  nlohmann::ordered_json schedule{
      {"format", "seq2par.schedule/1"},
      {"kernel", kernel},
      {"generator", "seq2par: owner-copy forall over " + describe_fields(program)},
      {"tiles", tile_count},
      {"fabric", fabric_summary},
      {"buffers", buffers},
      {"supersteps", supersteps}};
  // Compile-time addresses from the tile memory allocator, which the simulator checks.
  assign_buffer_addresses(schedule, fabric);
  return schedule;
}

} // namespace s2p::rt
