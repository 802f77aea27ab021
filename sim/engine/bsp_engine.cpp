#include "engine/bsp_engine.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "exchange/combine.h"
#include "exchange/on_chip.h"
#include "support/part_diagnostics.h"

namespace s2p::sim::detail {

namespace {

Cycles add_cycles(Cycles a, Cycles b) {
  Cycles sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw InputError("simulated time overflows 2^64 cycles (compute costs too large)");
  }
  return sum;
}

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
  return barrier_[static_cast<std::size_t>(group + 1)];
}

bool BspEngine::step(const ComputeHook& hook) {
  if (done_ || next_ >= resolver_.superstep_count()) {
    done_ = true;
    return false;
  }
  const std::size_t k = next_++;
  const int group = resolver_.schedule().supersteps[resolver_.program()[k].superstep].group;
  const int alone = alone_rank_.empty() ? -1 : alone_rank_[static_cast<std::size_t>(group + 1)];
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

void BspEngine::exchange_phase(std::size_t k) {
  const SuperstepTemplate& tpl = *step_.step;
  const std::vector<TileId>& group = resolver_.group_tiles(tpl.group);
  SuperstepStats stats;
  stats.index = static_cast<std::uint32_t>(k);
  stats.name = step_.expanded->name;
  stats.group = tpl.group < 0 ? "all" : schedule_.groups[tpl.group].name;
  stats.barrier = tpl.barrier;
  report_.superstep_tile_steps += group.size();
  if (group.empty()) {
    report_.supersteps.push_back(std::move(stats));
    return;
  }
  const Cycles sync = barrier_cost(tpl.group);
  const bool before = tpl.barrier != BarrierVariant::kB;
  const bool after = tpl.barrier != BarrierVariant::kA;

  // (a) and (c): nobody exchanges before everybody has computed.
  const Cycles computed = settle_compute(group, stats);
  const Cycles exchange_from = add_cycles(computed, sync);
  for (const TileId t : group) {
    exchange_start_[t] = before ? exchange_from : compute_end_[t];
    if (trace_ != nullptr && before) {
      trace_->tile_span(t, "sync", compute_end_[t], exchange_start_[t], stats.index);
    }
  }
  stats.sync_cycles = before ? sync : 0;

  if (!run_transfers(k)) {
    return;
  }
  const Cycles exchanged = settle_transfers(group, stats);

  if (!unmatched_.empty()) {
    report_deadlock(k);
    if (options_.stop_on_deadlock) {
      stats.end = exchanged;
      for (const TileId t : group) {
        ready_[t] = exchange_end_[t];
      }
      report_.supersteps.push_back(std::move(stats));
      done_ = true;
      report_.completed = false;
      return;
    }
  }

  // (b) and (c): nobody computes again before everybody has exchanged.
  const Cycles leave = add_cycles(exchanged, sync);
  for (const TileId t : group) {
    ready_[t] = after ? leave : exchange_end_[t];
    if (trace_ != nullptr && after) {
      trace_->tile_span(t, "sync", exchange_end_[t], ready_[t], stats.index);
    }
  }
  stats.sync_cycles += after ? sync : 0;
  stats.end = after ? leave : exchanged;
  if (trace_ != nullptr) {
    trace_->superstep_span(tpl.group, stats.name, stats.start, stats.end, stats.index);
  }
  report_.supersteps.push_back(std::move(stats));
}

Cycles BspEngine::settle_compute(const std::vector<TileId>& group, SuperstepStats& stats) {
  Cycles start = std::numeric_limits<Cycles>::max();
  Cycles computed = 0;
  for (const TileId t : group) {
    start = std::min(start, ready_[t]);
    compute_end_[t] = add_cycles(ready_[t], cost_[t]);
    computed = std::max(computed, compute_end_[t]);
    report_.tiles_stats[t].compute_cycles += cost_[t];
    if (trace_ != nullptr) {
      trace_->tile_span(t, "compute", ready_[t], compute_end_[t], stats.index);
    }
  }
  stats.start = start;
  stats.compute_cycles = computed - start;
  return computed;
}

bool BspEngine::run_transfers(std::size_t k) {
  const SuperstepTemplate& tpl = *step_.step;
  match_transfers(step_, resolver_, transfers_, unmatched_, *diagnostics_, scratch_);
  // The data checks and the port timing read the same transfers and write different things
  // (diagnostics; the transfers' timing fields), so two threads can take one each. The timing's
  // diagnostics are gathered apart and added after the checks', as one thread orders them.
  bool sources_written = false;
  const auto check_data = [&] {
    check_produced(step_, resolver_, memory_, *diagnostics_);
    sources_written = check_hazards(step_, resolver_, transfers_, *diagnostics_, scratch_);
  };
  timing_diagnostics_ = Diagnostics(diagnostics_->max_kept());
  const auto time_ports = [&] {
    time_on_chip(step_, resolver_, fabric_, places_, exchange_start_,
                 tpl.barrier == BarrierVariant::kB ? std::span<const Cycles>(compute_end_)
                                                   : std::span<const Cycles>(),
                 transfers_, timing_diagnostics_, timing_scratch_);
  };
  side_by_side(transfers_.size(), check_data, time_ports);
  replay(timing_diagnostics_, *diagnostics_);

  moves_.clear();
  // External transfers start once the sender's on-chip sends are out of its port.
  bool any_external = false;
  for (const TileId t : resolver_.group_tiles(tpl.group)) {
    port_free_[t] = exchange_start_[t];
  }
  for (const Transfer& t : transfers_) {
    if (t.external) {
      any_external = true;
    } else {
      port_free_[t.src] = std::max(port_free_[t.src], t.send_end);
    }
  }
  if (any_external) {
    const auto& lowest = xreq_tile_[static_cast<std::size_t>(tpl.group + 1)];
    for (std::uint32_t c = 0; c < fabric_.chips; ++c) {
      xreq_time_[c] = lowest[c] >= 0 ? exchange_start_[static_cast<TileId>(lowest[c])] : 0;
    }
    try {
      external_->run_phase(transfers_, port_free_, xreq_time_,
                           [this](std::uint32_t i, std::uint64_t offset, std::uint64_t bytes) {
                             if (distributed() && !alone_) {
                               if (memory_.has_data()) { // applied with the on-chip moves
                                 moves_.push_back({i, offset, bytes});
                               }
                             } else {
                               apply(transfers_[i], offset, bytes);
                             }
                           });
    } catch (const std::logic_error& error) {
      diagnostics_->add(resolver_.diagnostic("internal-error", k, std::nullopt, "", error.what()));
      done_ = true;
      report_.completed = false;
      return false;
    }
  }
  move_on_chip_data(sources_written);
  return true;
}

Cycles BspEngine::settle_transfers(const std::vector<TileId>& group, SuperstepStats& stats) {
  // Each tile's exchange ends with its own last word out and last word in. The receiving side
  // (produced bytes, arrivals) and the sending side (departures) touch different fields, so two
  // threads can take one side each; the two ends meet afterwards. The sending side counts into
  // arrays of its own rather than into the tiles' statistics: in a ring, the receiver of one
  // transfer is the sender of the next, so the two sides would write neighbouring TileStats,
  // the same cache lines, from two cores at once.
  for (const TileId t : group) {
    exchange_end_[t] = exchange_start_[t];
    send_end_[t] = exchange_start_[t];
    sent_bytes_[t] = 0;
    send_port_cycles_[t] = 0;
  }
  // The receiving side comes in two halves of the transfers, split where the destination tile
  // changes: match_transfers lists them by destination, so no tile's fields are written by both
  // halves (checked: unsorted transfers keep one half). Three jobs rather than two let the
  // threads even out the receiving side, the heavier one (produced ranges, more statistics).
  std::array<std::uint64_t, 2> bytes{};
  std::array<std::uint64_t, 2> external{};
  const auto receiving = [&](unsigned half, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Transfer& t = transfers_[i];
      const ResolvedRegion& dst = step_.receives[t.recv].destination;
      memory_.mark_produced(t.dst, dst.buffer, dst.offset, dst.offset + dst.bytes);
      exchange_end_[t.dst] = std::max(exchange_end_[t.dst], t.arrival_end);
      TileStats& in = report_.tiles_stats[t.dst];
      in.bytes_in += t.bytes;
      bytes[half] += t.bytes;
      if (t.external) {
        ++external[half];
      } else {
        in.receive_port_cycles += t.arrival_end - t.arrival_start;
      }
    }
  };
  std::vector<char>& counted = scratch_.flags;
  const auto sending = [&] {
    counted.assign(step_.sends.size(), 0);
    for (const Transfer& t : transfers_) {
      send_end_[t.src] = std::max(send_end_[t.src], t.send_end);
      if (t.external) {
        sent_bytes_[t.src] += t.bytes;   // each external leg is its own packet stream
      } else if (counted[t.send] == 0) { // an on-chip multicast leaves once for all its legs
        counted[t.send] = 1;
        sent_bytes_[t.src] += t.bytes;
        send_port_cycles_[t.src] += t.send_end - t.send_start;
      }
    }
  };
  const std::size_t n = transfers_.size();
  if (parts_for(n) < 2) {
    receiving(0, 0, n);
    sending();
  } else {
    const auto by_destination = [](const Transfer& a, const Transfer& b) { return a.dst < b.dst; };
    std::size_t half = n;
    if (std::is_sorted(transfers_.begin(), transfers_.end(), by_destination)) {
      const auto end = std::upper_bound(transfers_.begin(), transfers_.end(), transfers_[n / 2],
                                        by_destination);
      half = static_cast<std::size_t>(end - transfers_.begin());
    }
    pool_.run(3, [&](unsigned part) {
      if (part == 0) {
        receiving(0, 0, half);
      } else if (part == 1) {
        receiving(1, half, n);
      } else {
        sending();
      }
    });
  }
  stats.bytes += bytes[0] + bytes[1];
  stats.transfers += transfers_.size();
  stats.external_transfers += external[0] + external[1];
  Cycles exchanged = 0;
  Cycles first = std::numeric_limits<Cycles>::max();
  // Senders are the group's tiles (sends are resolved for them only), so this loop meets them all.
  for (const TileId t : group) {
    exchange_end_[t] = std::max(exchange_end_[t], send_end_[t]);
    exchanged = std::max(exchanged, exchange_end_[t]);
    first = std::min(first, exchange_start_[t]);
    TileStats& tile = report_.tiles_stats[t];
    tile.exchange_cycles += exchange_end_[t] - exchange_start_[t];
    tile.bytes_out += sent_bytes_[t];
    tile.send_port_cycles += send_port_cycles_[t];
    if (trace_ != nullptr) {
      trace_->tile_span(t, "exchange", exchange_start_[t], exchange_end_[t], stats.index);
    }
  }
  stats.exchange_cycles = exchanged - first;
  return exchanged;
}

void BspEngine::apply(const Transfer& transfer, std::uint64_t offset, std::uint64_t bytes) {
  if (!memory_.has_data() || bytes == 0) {
    return;
  }
  const ResolvedSend& send = step_.sends[transfer.send];
  const ResolvedRecv& recv = step_.receives[transfer.recv];
  const auto src =
      memory_.bytes(transfer.src, send.source.buffer).subspan(send.source.offset + offset, bytes);
  const auto dst = memory_.bytes(transfer.dst, recv.destination.buffer)
                       .subspan(recv.destination.offset + offset, bytes);
  combine_into(dst, src, recv.op, recv.type);
}

void BspEngine::move_on_chip_data(bool sources_written) {
  if (!memory_.has_data()) {
    return;
  }
  // Words land in arrival order; that order only matters where receives overlap, and there it is
  // the time-deterministic order the hardware would produce.
  std::vector<std::uint32_t>& order = scratch_.order;
  order.clear();
  for (std::uint32_t i = 0; i < transfers_.size(); ++i) {
    if (!transfers_[i].external) {
      order.push_back(i);
    }
  }
  sort_by_tile(
      order, [&](std::uint32_t i) { return transfers_[i].dst; },
      [&](std::uint32_t a, std::uint32_t b) {
        const Transfer& x = transfers_[a];
        const Transfer& y = transfers_[b];
        return x.arrival_start != y.arrival_start ? x.arrival_start < y.arrival_start : a < b;
      },
      schedule_.tiles, scratch_.counts, scratch_.spare_order);
  if (distributed() && !alone_) { // alone, source and receiver are this rank's tiles
    for (const std::uint32_t i : order) {
      moves_.push_back({i, 0, transfers_[i].bytes});
    }
    std::erase_if(moves_, [](const DataMove& move) { return move.bytes == 0; });
    move_across_ranks(moves_, transfers_, step_, memory_, owners_, *options_.ranks,
                      sources_written);
    return;
  }
  // Each part takes the transfers into a contiguous range of destination tiles: it alone
  // writes those tiles' memory, in the same order as one thread would. The bytes it reads are
  // written by nobody in this phase unless check_hazards found a read-write hazard (then the
  // result would depend on the order between tiles, so one thread keeps the global order).
  const unsigned parts = sources_written ? 1 : parts_for(order.size());
  pool_.run(parts, [&](unsigned part) {
    const auto dst_at = [&](std::size_t n) {
      const Share share = share_of(schedule_.tiles, parts, part);
      const auto tile = static_cast<TileId>(n == 0 ? share.begin : share.end);
      return static_cast<std::size_t>(
          std::lower_bound(order.begin(), order.end(), tile,
                           [&](std::uint32_t i, TileId t) { return transfers_[i].dst < t; }) -
          order.begin());
    };
    const std::size_t begin = part == 0 ? 0 : dst_at(0);
    const std::size_t end = part + 1 == parts ? order.size() : dst_at(1);
    // Each transfer touches a few cache lines of two tiles' memory, megabytes apart: fetching
    // a few transfers ahead turns one memory latency per line into streaming. Every transfer
    // also lands on pages the TLB no longer holds (a ring step visits every tile's memory), and
    // a prefetch waits for its page walk: touching one line of each side much further ahead
    // starts the walks early, so the full prefetch finds the translation ready (this loop was a
    // quarter of a 5888-tile x 1 MiB run's time, about 1 % after). Too many lines in flight at
    // once stall too, hence two distances rather than one longer one.
    constexpr std::size_t kAhead = 6;
    constexpr std::size_t kPagesAhead = 48;
    for (std::size_t n = begin; n < end; ++n) {
      if (n + kPagesAhead < end) {
        prefetch_pages(transfers_[order[n + kPagesAhead]]);
      }
      if (n + kAhead < end) {
        prefetch(transfers_[order[n + kAhead]]);
      }
      apply(transfers_[order[n]], 0, transfers_[order[n]].bytes);
    }
  });
}

void BspEngine::prefetch(const Transfer& transfer) const {
  constexpr std::uint64_t kLine = 64;
  constexpr std::uint64_t kMaxBytes = 4096; // beyond this the hardware prefetcher keeps up
  const ResolvedRegion& from = step_.sends[transfer.send].source;
  const ResolvedRegion& to = step_.receives[transfer.recv].destination;
  const std::byte* src = memory_.bytes(transfer.src, from.buffer).data() + from.offset;
  const std::byte* dst = memory_.bytes(transfer.dst, to.buffer).data() + to.offset;
  const std::uint64_t bytes = std::min(transfer.bytes, kMaxBytes);
  // Every line the region touches: a region that does not start on a line boundary ends on
  // one line more than bytes / 64 (a ring's fragments start anywhere).
  const auto first_line = [](const std::byte* p) {
    return reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{kLine - 1};
  };
  const std::uintptr_t src_end = reinterpret_cast<std::uintptr_t>(src) + bytes;
  for (std::uintptr_t at = first_line(src); at < src_end; at += kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(at), 0); // NOLINT(performance-no-int-to-ptr)
  }
  const std::uintptr_t dst_end = reinterpret_cast<std::uintptr_t>(dst) + bytes;
  for (std::uintptr_t at = first_line(dst); at < dst_end; at += kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(at), 1); // NOLINT(performance-no-int-to-ptr)
  }
}

void BspEngine::prefetch_pages(const Transfer& transfer) const {
  if (transfer.bytes == 0) {
    return;
  }
  const ResolvedRegion& from = step_.sends[transfer.send].source;
  const ResolvedRegion& to = step_.receives[transfer.recv].destination;
  __builtin_prefetch(memory_.bytes(transfer.src, from.buffer).data() + from.offset, 0);
  __builtin_prefetch(memory_.bytes(transfer.dst, to.buffer).data() + to.offset, 1);
}

void BspEngine::report_deadlock(std::size_t k) {
  const SuperstepTemplate& tpl = *step_.step;
  DeadlockInfo info;
  info.superstep = static_cast<std::uint32_t>(k);
  info.superstep_name = step_.expanded->name;
  info.blocked_count = unmatched_.size();
  for (const std::uint32_t r : unmatched_) {
    const ResolvedRecv& recv = step_.receives[r];
    const std::string& entry = tpl.receives[recv.entry].name;
    const std::string what = "waits in entry '" + entry + "' for " +
                             std::to_string(recv.destination.bytes) + " bytes from tile " +
                             std::to_string(recv.from) + ", which sends nothing to it" +
                             (tpl.receives[recv.entry].tag.empty()
                                  ? ""
                                  : " with tag '" + tpl.receives[recv.entry].tag + "'") +
                             " in this superstep";
    diagnostics_->add(resolver_.diagnostic("deadlock", k, recv.tile, entry, "deadlock: " + what));
    if (info.blocked.size() < 100) {
      info.blocked.push_back("tile " + std::to_string(recv.tile) + " " + what);
    }
  }
  if (!report_.deadlock) {
    report_.deadlock = std::move(info);
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
