// The BSP engine's exchange phase (see bsp_engine.h): the barriers around it, matching, checking
// and timing the transfers, moving their data, each tile's exchange end, deadlocks.
#include "engine/bsp_engine.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "exchange/combine.h"
#include "exchange/on_chip.h"
#include "support/part_diagnostics.h"

namespace s2p::sim::detail {

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
    const auto& lowest = xreq_tile_[static_cast<std::size_t>(tpl.group) + 1];
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

} // namespace s2p::sim::detail
