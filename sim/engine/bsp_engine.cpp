// The BSP engine's superstep loop (see bsp_engine.h): set-up, resolving each superstep (on the
// host threads, across ranks), the compute phase, supersteps run alone on one rank, the end.
// The exchange phase is in bsp_exchange_phase.cpp.
#include "engine/bsp_engine.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "support/part_diagnostics.h"

namespace s2p::sim::detail {

namespace {

std::vector<TileStats>& fresh_tile_stats(RunReport& report, std::uint32_t tiles) {
  report.tiles_stats.assign(tiles, TileStats{});
  report.tiles_memory_over_time.assign(tiles, MemoryOverTime{});
  return report.tiles_stats;
}

std::vector<TileRange> shares_of(const Schedule& schedule, const Ranks* ranks) {
  std::vector<TileRange> shares;
  if (ranks != nullptr && ranks->size() > 1) {
    for (unsigned r = 0; r < ranks->size(); ++r) {
      shares.push_back(
          rank_tiles(schedule.tiles, schedule.chips, schedule.tiles_per_chip, ranks->size(), r));
    }
  }
  return shares;
}

/// Below this many of a superstep's tiles per rank, every rank resolves the whole superstep
/// itself: cheaper than gathering the parts.
constexpr std::size_t kMinTilesPerRank = 64;

} // namespace

BspEngine::BspEngine(const Schedule& schedule, const Fabric& fabric, const EngineOptions& options,
                     Diagnostics& diagnostics, RunReport& report, TraceRecorder* trace)
    : schedule_(schedule), fabric_(fabric), options_(options), diagnostics_(&diagnostics),
      report_(report), trace_(trace), shares_(shares_of(schedule, options.ranks)),
      owners_(shares_.empty() ? RankOwners() : RankOwners(schedule, options.ranks->size())),
      resolver_(schedule, diagnostics), places_(schedule, fabric),
      memory_(resolver_, fabric, options.move_data, options.max_host_bytes, diagnostics,
              fresh_tile_stats(report, schedule.tiles), report.tiles_memory_over_time, shares_,
              shares_.empty() ? 0 : options.ranks->rank()),
      pool_(options.threads == 0 ? default_thread_count() : options.threads),
      ready_(schedule.tiles, 0), compute_end_(schedule.tiles, 0),
      exchange_start_(schedule.tiles, 0), exchange_end_(schedule.tiles, 0),
      cost_(schedule.tiles, 0), send_end_(schedule.tiles, 0), sent_bytes_(schedule.tiles, 0),
      send_port_cycles_(schedule.tiles, 0), port_free_(schedule.tiles, 0),
      xreq_time_(fabric.chips, 0) {
  if (fabric.chips > 1 || schedule.chips > 1) {
    external_ = std::make_unique<ExternalExchange>(fabric, schedule, options.seed, report.links,
                                                   report.xbs, trace);
  }
  if (distributed()) {
    const std::vector<std::uint64_t> threads = gather_words(*options.ranks, pool_.size());
    rank_threads_ = static_cast<unsigned>(*std::min_element(threads.begin(), threads.end()));
  }
  find_alone_groups();
  report_.routing = RoutingTable(fabric).to_json();
  report_.supersteps_planned = resolver_.superstep_count();
  for (int g = -1; g < static_cast<int>(schedule.groups.size()); ++g) {
    const auto& tiles = resolver_.group_tiles(g);
    std::vector<std::int64_t> lowest(fabric.chips, -1);
    std::vector<std::uint64_t> per_chip(std::max(fabric.chips, schedule.chips), 0);
    for (const TileId t : tiles) { // ascending: the first seen on a chip is its lowest
      ++per_chip[schedule.chip_of(t)];
      auto& slot = lowest[schedule.chip_of(t)];
      if (slot < 0) {
        slot = t;
      }
    }
    // The barrier grows with the group: its tiles on the fullest chip, and its chips.
    const auto chips = static_cast<std::uint32_t>(
        std::count_if(per_chip.begin(), per_chip.end(), [](std::uint64_t n) { return n > 0; }));
    barrier_.push_back(
        fabric.barrier_cycles(*std::max_element(per_chip.begin(), per_chip.end()), chips));
    xreq_tile_.push_back(std::move(lowest));
  }
}

Cycles BspEngine::barrier_cost(int group) const {
  return barrier_[static_cast<std::size_t>(group) + 1];
}

bool BspEngine::step(const ComputeHook& hook) {
  if (done_ || next_ >= resolver_.superstep_count()) {
    done_ = true;
    return false;
  }
  const std::size_t k = next_++;
  const int group = resolver_.schedule().supersteps[resolver_.program()[k].superstep].group;
  const int alone = alone_rank_.empty() ? -1 : alone_rank_[static_cast<std::size_t>(group) + 1];
  if (alone >= 0 && alone == static_cast<int>(options_.ranks->rank()) && !restart_) {
    run_alone(k, hook);
  } else if (alone >= 0) {
    skip(k);
  } else {
    if (ran_alone_) { // the same on every rank: a superstep ran alone since the last catching-up
      catch_up(false);
    }
    resolve(k);
    compute_phase(k, hook);
    exchange_phase(k);
  }
  if (next_ >= resolver_.superstep_count()) {
    done_ = true;
  }
  return !done_;
}

void BspEngine::find_alone_groups() {
  if (!distributed() || !options_.alone_supersteps || trace_ != nullptr ||
      !options_.stop_on_deadlock) {
    return;
  }
  for (int g = -1; g < static_cast<int>(schedule_.groups.size()); ++g) {
    const std::vector<TileId>& tiles = resolver_.group_tiles(g);
    // Ascending tiles: the first and last on one chip and one rank means all of them are. Such
    // a group's transfers stay on its chip (a peer outside the group is an error), so neither
    // the links nor another rank's tiles take part.
    const bool one_place = !tiles.empty() &&
                           schedule_.chip_of(tiles.front()) == schedule_.chip_of(tiles.back()) &&
                           owners_.owner(tiles.front()) == owners_.owner(tiles.back());
    alone_rank_.push_back(one_place ? static_cast<int>(owners_.owner(tiles.front())) : -1);
  }
}

void BspEngine::run_alone(std::size_t k, const ComputeHook& hook) {
  ran_alone_ = true;
  alone_steps_.push_back({SuperstepStats{}, Diagnostics(diagnostics_->max_kept())});
  Diagnostics* const run_diagnostics = diagnostics_;
  diagnostics_ = &alone_steps_.back().diagnostics;
  alone_ = true;
  const std::size_t recorded = report_.supersteps.size();
  try {
    resolve(k);
    compute_phase(k, hook);
    exchange_phase(k);
  } catch (const std::exception&) {
    restart_ = true; // the others learn it when they catch up, and all run again together
  }
  alone_ = false;
  diagnostics_ = run_diagnostics;
  if (done_ || report_.supersteps.size() != recorded + 1) {
    restart_ = true; // a deadlock ended the run here, while the others ran ahead
    done_ = false;
    report_.supersteps.resize(recorded + 1);
  }
  alone_steps_.back().stats = report_.supersteps.back();
}

void BspEngine::skip(std::size_t k) {
  ran_alone_ = true;
  const int group = resolver_.schedule().supersteps[resolver_.program()[k].superstep].group;
  report_.superstep_tile_steps += resolver_.group_tiles(group).size();
  report_.supersteps.emplace_back(); // filled in when the ranks catch up
}

void BspEngine::catch_up(bool final) {
  Ranks& ranks = *options_.ranks;
  const TileRange mine = shares_[ranks.rank()];
  ByteWriter out;
  out.value<std::uint8_t>(restart_ ? 1 : 0);
  out.values(std::span<const Cycles>(ready_).subspan(mine.begin, mine.end - mine.begin));
  pack_produced(out, memory_, mine, schedule_.buffers.size());
  if (final) {
    out.values(std::span<const TileStats>(report_.tiles_stats)
                   .subspan(mine.begin, mine.end - mine.begin));
  }
  out.value<std::uint64_t>(alone_steps_.size());
  for (const AloneStep& step : alone_steps_) {
    pack_stats(out, step.stats);
    pack_diagnostics(out, step.diagnostics);
  }
  alone_steps_.clear();
  ran_alone_ = false;
  const std::vector<std::vector<std::byte>> all = ranks.all_gather(out.take());
  std::vector<AloneStep> steps;
  bool restart = false;
  for (unsigned r = 0; r < ranks.size(); ++r) {
    ByteReader in(all[r]);
    restart = in.value<std::uint8_t>() != 0 || restart;
    const TileRange theirs = shares_[r];
    const std::size_t count = theirs.end - theirs.begin;
    // This rank reads its own message back too: the same values it holds.
    in.values_into(std::span<Cycles>(ready_).subspan(theirs.begin, count));
    unpack_produced(in, memory_, theirs, schedule_.buffers.size());
    if (final) {
      in.values_into(std::span<TileStats>(report_.tiles_stats).subspan(theirs.begin, count));
    }
    const auto alone_steps = in.value<std::uint64_t>();
    for (std::uint64_t i = 0; i < alone_steps; ++i) {
      steps.push_back({unpack_stats(in), Diagnostics(diagnostics_->max_kept())});
      unpack_diagnostics(in, steps.back().diagnostics);
    }
  }
  if (restart) {
    restart_ = false;
    throw RestartEverySuperstepOnEveryRank();
  }
  // In program order, as one process adds them.
  std::sort(steps.begin(), steps.end(), [](const AloneStep& a, const AloneStep& b) {
    return a.stats.index < b.stats.index;
  });
  for (AloneStep& step : steps) {
    replay(step.diagnostics, *diagnostics_);
    report_.supersteps[step.stats.index] = std::move(step.stats);
  }
}

unsigned BspEngine::parts_for(std::size_t tiles, unsigned threads) {
  // Below this many tiles a part's work takes about as long as handing it to a thread.
  constexpr std::size_t kMinTilesPerPart = 32;
  // A few parts per thread, so that the others finish the work of one that the machine's
  // scheduler has set aside.
  constexpr std::size_t kPartsPerThread = 4;
  if (threads == 1) {
    return 1;
  }
  const std::size_t parts =
      std::min<std::size_t>(threads * kPartsPerThread, tiles / kMinTilesPerPart);
  return parts == 0 ? 1 : static_cast<unsigned>(parts);
}

void BspEngine::resolve(std::size_t k) {
  const int group = resolver_.schedule().supersteps[resolver_.program()[k].superstep].group;
  const std::size_t tiles = resolver_.group_tiles(group).size();
  if (distributed() && !alone_ && tiles >= kMinTilesPerRank * shares_.size()) {
    resolve_across_ranks(k, tiles);
    return;
  }
  const unsigned parts = parts_for(tiles);
  if (parts == 1) {
    resolver_.resolve(k, step_, *diagnostics_);
    return;
  }
  if (parts_.size() < parts) {
    parts_.resize(parts);
  }
  pool_.run(parts, [&](unsigned part) {
    resolver_.resolve_part(k, part, parts, parts_[part], diagnostics_->max_kept());
  });
  // The parts are copied into place on the threads too, each most likely by the one that
  // resolved it (the pool hands a thread the same end of the parts every time).
  Resolver::merge_parts(std::span<const ResolvedPart>(parts_.data(), parts), step_, *diagnostics_,
                        [this](unsigned n, const std::function<void(unsigned)>& job) {
                          pool_.run(n, [&job](unsigned part) { job(part); });
                        });
}

void BspEngine::resolve_across_ranks(std::size_t k, std::size_t tiles) {
  Ranks& ranks = *options_.ranks;
  const unsigned me = ranks.rank();
  const unsigned local = parts_for(tiles / ranks.size(), rank_threads_);
  const unsigned parts = local * ranks.size();
  if (parts_.size() < parts) {
    parts_.resize(parts);
  }
  pool_.run(local, [&](unsigned p) {
    resolver_.resolve_part(k, me * local + p, parts, parts_[me * local + p],
                           diagnostics_->max_kept());
  });
  // This rank's parts, each with its length in front.
  std::vector<std::byte> mine;
  for (unsigned p = 0; p < local; ++p) {
    const std::vector<std::byte> packed = pack_part(parts_[me * local + p]);
    const std::uint64_t size = packed.size();
    const auto* size_bytes = reinterpret_cast<const std::byte*>(&size);
    mine.insert(mine.end(), size_bytes, size_bytes + sizeof size);
    mine.insert(mine.end(), packed.begin(), packed.end());
  }
  const std::vector<std::vector<std::byte>> all = ranks.all_gather(mine);
  for (unsigned r = 0; r < ranks.size(); ++r) {
    if (r == me) {
      continue;
    }
    std::span<const std::byte> rest(all[r]);
    for (unsigned p = 0; p < local; ++p) {
      std::uint64_t size = 0;
      if (rest.size() < sizeof size) {
        throw std::logic_error("distributed engine: rank " + std::to_string(r) +
                               " sent too few resolved parts");
      }
      std::memcpy(&size, rest.data(), sizeof size);
      rest = rest.subspan(sizeof size);
      if (rest.size() < size) {
        throw std::logic_error("distributed engine: a resolved part from rank " +
                               std::to_string(r) + " is truncated");
      }
      unpack_part(rest.first(size), resolver_, k, diagnostics_->max_kept(), parts_[r * local + p]);
      rest = rest.subspan(size);
    }
  }
  Resolver::merge_parts(std::span<const ResolvedPart>(parts_.data(), parts), step_, *diagnostics_);
}

void BspEngine::compute_phase(std::size_t k, const ComputeHook& hook) {
  const SuperstepTemplate& tpl = *step_.step;
  for (const TileId t : resolver_.group_tiles(tpl.group)) {
    cost_[t] = 0;
  }
  for (const ResolvedCompute& c : step_.compute) {
    const ComputeEntry& entry = tpl.compute[c.entry];
    if (entry.warps > fabric_.tile.threads) {
      diagnostics_->add(
          resolver_.diagnostic("too-many-warps", k, c.tile, entry.name,
                               "uses " + std::to_string(entry.warps) + " warps; the tile has " +
                                   std::to_string(fabric_.tile.threads) + " hardware threads"));
    }
    for (std::uint32_t r = 0; r < c.read_count; ++r) {
      const ResolvedRegion& region = step_.regions[c.first_region + r];
      if (!memory_.produced(c.tile, region.buffer, region.offset, region.offset + region.bytes)) {
        diagnostics_->add(resolver_.diagnostic(
            "not-produced", k, c.tile, entry.name,
            "reads bytes [" + std::to_string(region.offset) + ", " +
                std::to_string(region.offset + region.bytes) + ") of buffer '" +
                schedule_.buffers[region.buffer].name + "', which nothing has produced yet"));
      }
    }
    Cycles cycles = c.cycles;
    if (hook && memory_.has_data()) {
      if (const auto measured = hook(c, k)) {
        cycles = *measured;
      }
    }
    cost_[c.tile] = add_cycles(cost_[c.tile], cycles);
    for (std::uint32_t w = 0; w < c.write_count; ++w) {
      const ResolvedRegion& region = step_.regions[c.first_region + c.read_count + w];
      memory_.mark_produced(c.tile, region.buffer, region.offset, region.offset + region.bytes);
    }
  }
}

void BspEngine::finish() {
  if (!alone_rank_.empty()) {
    catch_up(true); // the per-tile statistics too, whether or not a superstep ran alone
  }
  if (external_) {
    external_->drain();
    const auto& emitted = external_->emit_cycles();
    for (TileId t = 0; t < schedule_.tiles; ++t) {
      report_.tiles_stats[t].send_port_cycles += emitted[t];
    }
  }
  Cycles total = 0;
  for (TileId t = 0; t < schedule_.tiles; ++t) {
    report_.tiles_stats[t].end = ready_[t];
    total = std::max(total, ready_[t]);
  }
  report_.total_cycles = total;
  if (!report_.deadlock && next_ >= resolver_.superstep_count() &&
      report_.supersteps.size() == resolver_.superstep_count()) {
    report_.completed = true;
  }
}

} // namespace s2p::sim::detail
