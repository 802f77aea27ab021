// A forall's owner-copy program as seq2par.schedule/1 (see
// <seq2par/planning/forall_schedule.h>), as the runtime runs it and as seq2par writes it as a
// template at transpile time.
#include <seq2par/planning/forall_schedule.h>

#include <seq2par/planning/buffer_addresses.h>
#include <seq2par/planning/placement.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
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

// A move between schedule buffers: from the owned or received buffer of a field on one tile to
// one of them on another, offsets relative to those buffers.
struct buffer_move {
  int from_buffer = 0; // index into the schedule's buffers
  int to_buffer = 0;
  int from_tile = 0;
  int to_tile = 0;
  std::int64_t from_offset = 0;
  std::int64_t to_offset = 0;
  std::int64_t bytes = 0;
};

struct timed_move {
  buffer_move move;
  std::int64_t cycle = 0;
};

// Send cycles such that each tile sends one stream at a time and receives one at a time.
// List scheduling: the move that can start earliest goes next (ties in list order), so one
// busy port does not hold back moves between idle ones. Moves between chips are external:
// the XB paces them, so only the sender's port is booked. Returned in the order scheduled.
std::vector<timed_move> schedule_moves(const std::vector<buffer_move>& moves, std::size_t tiles,
                                       const sim::Fabric& fabric, std::uint32_t tiles_per_chip) {
  std::vector<std::int64_t> send_free(tiles, 0), receive_free(tiles, 0);
  const std::int64_t rate = fabric.exchange.send_bytes_per_cycle;
  auto external = [&](const buffer_move& m) {
    return static_cast<std::uint32_t>(m.from_tile) / tiles_per_chip !=
           static_cast<std::uint32_t>(m.to_tile) / tiles_per_chip;
  };
  auto latency = [&](const buffer_move& m) {
    return static_cast<std::int64_t>(
        fabric.on_chip_latency(static_cast<std::uint32_t>(m.from_tile) % tiles_per_chip,
                               static_cast<std::uint32_t>(m.to_tile) % tiles_per_chip));
  };
  auto earliest = [&](const buffer_move& m) {
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
    const buffer_move& m = moves[k];
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
// sender, the receiver, both offsets and the send cycle each step by a constant (same buffers,
// same size) becomes one send entry and one receive entry whose fields are expressions of the
// tile index.
// Returns groups of indices into `moves`; runs shorter than three stay single moves.
std::vector<std::vector<std::size_t>> progressions(const std::vector<timed_move>& moves) {
  using key = std::array<std::int64_t, 8>;
  constexpr std::size_t kFirstStepping = 3, kReceiver = 4; // from_tile onwards step in a run
  auto key_of = [](const timed_move& t) {
    return key{t.move.from_buffer, t.move.to_buffer,   t.move.bytes,     t.move.from_tile,
               t.move.to_tile,     t.move.from_offset, t.move.to_offset, t.cycle};
  };
  std::map<key, std::size_t> index_of; // every move by its key (`taken` says if it is used)
  for (std::size_t k = 0; k < moves.size(); ++k)
    index_of.emplace(key_of(moves[k]), k);
  // By buffers, size and sender: a run's next member comes from a later sender.
  std::vector<std::size_t> order(moves.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const buffer_move &x = moves[a].move, &y = moves[b].move;
    return std::tie(x.from_buffer, x.to_buffer, x.bytes, x.from_tile, a) <
           std::tie(y.from_buffer, y.to_buffer, y.bytes, y.from_tile, b);
  });
  std::vector<bool> taken(moves.size(), false);
  std::vector<std::vector<std::size_t>> groups;
  auto chain_from = [&](std::size_t first, std::size_t second) {
    key step = key_of(moves[second]), at = key_of(moves[second]);
    const key base = key_of(moves[first]);
    for (std::size_t d = 0; d < step.size(); ++d)
      step[d] -= base[d];
    std::vector<std::size_t> chain{first, second};
    if (step[kReceiver] == 0) // one receiver twice: not a tile set
      return chain;
    while (true) {
      for (std::size_t d = kFirstStepping; d < at.size(); ++d)
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
    // Second members: the next sender's moves between the same buffers, of the same size.
    std::size_t q = p + 1;
    while (q < order.size() && moves[order[q]].move.from_tile == moves[first].move.from_tile)
      ++q;
    const int next_sender = q < order.size() ? moves[order[q]].move.from_tile : -1;
    for (std::size_t tried = 0; q < order.size() && tried < kCandidates; ++q) {
      const buffer_move& m = moves[order[q]].move;
      const buffer_move& f = moves[first].move;
      if (m.from_buffer != f.from_buffer || m.to_buffer != f.to_buffer || m.bytes != f.bytes ||
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
nlohmann::ordered_json exchange_entries(const std::vector<buffer_move>& moves,
                                        const std::vector<std::string>& buffers,
                                        std::size_t tiles, const sim::Fabric& fabric,
                                        std::uint32_t tiles_per_chip, const std::string& what) {
  const std::vector<timed_move> timed = schedule_moves(moves, tiles, fabric, tiles_per_chip);
  nlohmann::ordered_json exchange = nlohmann::ordered_json::array();
  for (const auto& group : progressions(timed)) {
    const timed_move& first = timed[group.front()];
    const buffer_move& m = first.move;
    const std::string& source = buffers[static_cast<std::size_t>(m.from_buffer)];
    const std::string& destination = buffers[static_cast<std::size_t>(m.to_buffer)];
    if (group.size() == 1) {
      const std::string name = what + " " + std::to_string(group.front());
      exchange.push_back({{"kind", "send"},
                          {"name", name},
                          {"tiles", {m.from_tile}},
                          {"buffer", source},
                          {"offset", m.from_offset},
                          {"bytes", m.bytes},
                          {"to", m.to_tile},
                          {"cycle", first.cycle}});
      exchange.push_back({{"kind", "recv"},
                          {"name", name},
                          {"tiles", {m.to_tile}},
                          {"from", m.from_tile},
                          {"buffer", destination},
                          {"offset", m.to_offset},
                          {"bytes", m.bytes}});
      continue;
    }
    // Member k: sender from + k*df, receiver to + k*dt, and so on. The sender finds k from
    // its index, the receiver from its own; a tag keeps the run's transfers paired.
    const buffer_move& second = timed[group[1]].move;
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
         {"buffer", source},
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
         {"buffer", destination},
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

std::int64_t received_on(const tile_field& f, std::size_t tile) {
  return tile < f.received_bytes_per_tile.size() ? f.received_bytes_per_tile[tile] : 0;
}

// Where the supersteps of the program sit: the multicast of shared structures (when there are
// any), the owner-copy moves (when there are any), the forall, the returns of stolen results.
struct forall_steps {
  int moves = 0;
  int compute = 0;
  int returns = 0;
};

nlohmann::ordered_json buffer_entry(const tile_field& f) {
  std::int64_t most = 1;
  for (std::size_t t = 0; t < f.bytes_per_tile.size(); ++t) // the owned blocks (shared: all)
    most = std::max(most, f.bytes_per_tile[t] - (f.shared ? 0 : received_on(f, t)));
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

// The buffer of a field's received blocks on the tiles that receive any (none: std::nullopt),
// live from the exchange that brings them in to the compute, or to the returns for the output's
// copies when stolen results go home from them.
std::optional<nlohmann::ordered_json> received_entry(const tile_field& f, bool output,
                                                     const forall_steps& steps, bool returns) {
  std::int64_t most = 0;
  std::vector<int> holders;
  for (std::size_t t = 0; t < f.bytes_per_tile.size(); ++t)
    if (received_on(f, t) > 0) {
      most = std::max(most, received_on(f, t));
      holders.push_back(static_cast<int>(t));
    }
  if (f.shared || holders.empty())
    return std::nullopt;
  const int first = std::min(steps.moves, steps.compute);
  const int last = output && returns ? steps.returns : steps.compute;
  return nlohmann::ordered_json{{"name", received_buffer_name(f.name)},
                                {"type", f.element_type},
                                {"bytes", most},
                                {"tiles", holders},
                                {"init", "zero"},
                                {"category", "received"},
                                {"live", {{"first", first}, {"last", last}}}};
}

// A buffer of the task body (a pool, a code image) on `holders`, the tiles that run tasks (none:
// std::nullopt); `tiles` names them unless every tile runs tasks.
std::optional<nlohmann::ordered_json> task_buffer_entry(std::string name, std::string type,
                                                        std::int64_t bytes, const char* category,
                                                        const std::vector<int>& holders,
                                                        const tile_program& program) {
  if (holders.empty() || bytes <= 0)
    return std::nullopt;
  nlohmann::ordered_json buffer{
      {"name", std::move(name)}, {"type", std::move(type)}, {"bytes", bytes}};
  if (holders.size() < program.tasks_per_tile.size())
    buffer["tiles"] = holders;
  buffer["init"] = "zero";
  buffer["category"] = category;
  return buffer;
}

// The buffer of one of a composed task's pools, live during the compute alone.
std::optional<nlohmann::ordered_json> pool_entry(const tile_task_pool& pool,
                                                 const std::vector<int>& holders,
                                                 const tile_program& program,
                                                 const forall_steps& steps) {
  auto buffer = task_buffer_entry(pool_buffer_name(pool.name), pool_buffer_type(pool.element_bytes),
                                  pool.bytes, "pool", holders, program);
  if (buffer)
    (*buffer)["live"] = {{"first", steps.compute}, {"last", steps.compute}};
  return buffer;
}

// The buffer of one of the task body's code images, live for the whole launch (no `live`),
// typed by instruction words where they fit.
std::optional<nlohmann::ordered_json> code_entry(const tile_code_image& image,
                                                 const std::vector<int>& holders,
                                                 const tile_program& program) {
  return task_buffer_entry(code_buffer_name(image.name), image.bytes % 4 == 0 ? "u32" : "u8",
                           image.bytes, "code", holders, program);
}

// The schedule's buffers: per field its owned blocks, then its received blocks where a tile
// receives any, then the composed task's pools, then the body's code; and the moves between
// them.
struct forall_buffers {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::vector<std::string> names;
  std::vector<int> owned;    // per field, its buffer's index
  std::vector<int> received; // per field, its received blocks' buffer, or -1

  forall_buffers(const tile_program& program, const forall_steps& steps) {
    for (std::size_t f = 0; f < program.fields.size(); ++f) {
      owned.push_back(add(buffer_entry(program.fields[f])));
      const auto copies =
          received_entry(program.fields[f], f == 0, steps, !program.returns.empty());
      received.push_back(copies ? add(*copies) : -1);
    }
    const std::vector<int> holders = tiles_running_tasks(program);
    for (const auto& pool : program.task_pools)
      if (auto entry = pool_entry(pool, holders, program, steps))
        add(std::move(*entry));
    for (const auto& image : program.code_images)
      if (auto entry = code_entry(image, holders, program))
        add(std::move(*entry));
  }
  int add(nlohmann::ordered_json entry) {
    names.push_back(entry["name"].get<std::string>());
    entries.push_back(std::move(entry));
    return static_cast<int>(names.size()) - 1;
  }
  // A move of the program (offsets into the field's [owned | received] layout of each tile) as
  // one between the buffers that hold those blocks.
  buffer_move place(const tile_move& m, const tile_program& program) const {
    const auto f = static_cast<std::size_t>(m.field);
    auto side = [&](int tile, std::int64_t offset) -> std::pair<int, std::int64_t> {
      const auto t = static_cast<std::size_t>(tile);
      const std::int64_t own =
          program.fields[f].bytes_per_tile[t] - received_on(program.fields[f], t);
      if (received[f] < 0 || offset < own)
        return {owned[f], offset};
      return {received[f], offset - own};
    };
    const auto [from_buffer, from_offset] = side(m.from_tile, m.from_offset);
    const auto [to_buffer, to_offset] = side(m.to_tile, m.to_offset);
    return {from_buffer, to_buffer, m.from_tile, m.to_tile, from_offset, to_offset, m.bytes};
  }
  std::vector<buffer_move> place(const std::vector<tile_move>& moves,
                                 const tile_program& program) const {
    std::vector<buffer_move> placed;
    placed.reserve(moves.size());
    for (const auto& m : moves)
      placed.push_back(place(m, program));
    return placed;
  }
};

} // namespace

// Two underscores: a name C++ reserves, so no field of a kernel has it.
std::string received_buffer_name(const std::string& field) { return field + "__received"; }
std::string pool_buffer_name(const std::string& pool) { return pool + "__pool"; }
std::string code_buffer_name(const std::string& image) { return image + "__code"; }

std::vector<int> tiles_running_tasks(const tile_program& program) {
  std::vector<int> tiles;
  for (std::size_t t = 0; t < program.tasks_per_tile.size(); ++t)
    if (program.tasks_per_tile[t] > 0)
      tiles.push_back(static_cast<int>(t));
  return tiles;
}

std::string pool_buffer_type(std::int64_t element_bytes) {
  std::int64_t alignment = 1;
  while (alignment < 8 && element_bytes % (2 * alignment) == 0)
    alignment *= 2;
  return 'u' + std::to_string(8 * alignment); // not "u" +: GCC bug 105651 (-Wrestrict)
}

nlohmann::ordered_json forall_schedule(const std::string& kernel, int tile_count,
                                       const tile_program& program, const sim::Fabric& fabric) {
  const auto tiles = static_cast<std::uint32_t>(tile_count);
  const std::uint32_t chips = chips_for(fabric, tiles, false);
  const std::uint32_t tiles_per_chip = tiles_per_chip_for(fabric, tiles);
  std::vector<tile_move> moves, multicasts;
  for (const auto& m : program.moves)
    (program.fields[static_cast<std::size_t>(m.field)].shared ? multicasts : moves).push_back(m);
  forall_steps steps;
  steps.moves = multicasts.empty() ? 0 : 1;
  steps.compute = steps.moves + (moves.empty() ? 0 : 1);
  steps.returns = steps.compute + 1;
  const forall_buffers buffers(program, steps);
  const nlohmann::ordered_json exchange = exchange_entries(
      buffers.place(moves, program), buffers.names, tiles, fabric, tiles_per_chip, "move");
  const nlohmann::ordered_json returns =
      exchange_entries(buffers.place(program.returns, program), buffers.names, tiles, fabric,
                       tiles_per_chip, "stolen result");
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
      {"buffers", buffers.entries},
      {"supersteps", supersteps}};
  // Compile-time addresses from the tile memory allocator, which the simulator checks.
  assign_buffer_addresses(schedule, fabric);
  return schedule;
}

} // namespace s2p::rt
