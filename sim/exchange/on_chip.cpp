#include "exchange/on_chip.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace s2p::sim::detail {

namespace {

std::string cycles(Cycles from, Cycles to, Cycles phase_start) {
  // '[' rather than "[": GCC 12 reports a false -Wrestrict for a one-character literal plus a
  // temporary std::string (GCC bug 105651).
  return '[' + std::to_string(from - phase_start) + ", " + std::to_string(to - phase_start) + ")";
}

using Interval = std::pair<Cycles, Cycles>; ///< [first, end) cycles a port is busy

/// The first start >= `earliest` at which `duration` cycles fit between the intervals of `busy`
/// (sorted by start); the new interval is added to `busy`.
Cycles place(std::vector<Interval>& busy, Cycles earliest, Cycles duration) {
  Cycles start = earliest;
  auto it = busy.begin();
  for (; it != busy.end(); ++it) {
    if (it->second <= start) {
      continue;
    }
    if (it->first >= start + duration) {
      break;
    }
    start = it->second; // overlaps: try after it
  }
  busy.insert(std::upper_bound(busy.begin(), busy.end(), Interval{start, start + duration}),
              {start, start + duration});
  return start;
}

/// Sends with dynamic timing: each waits for its send port, then its receive ports, around the
/// fixed transfers, in the order of its earliest start (then transfer order), and its latency
/// grows with the share of its chip's tiles that send in this phase.
void time_dynamic(const ResolvedSuperstep& step, const Schedule& schedule, const Fabric& fabric,
                  const TilePlaces& places, std::vector<Transfer>& transfers,
                  const std::vector<std::uint32_t>& internal) {
  const SuperstepTemplate& tpl = *step.step;
  const auto dynamic = [&](const Transfer& t) {
    return tpl.sends[step.sends[t.send].entry].timing == SendTiming::kDynamic;
  };
  std::vector<std::vector<Interval>> send_busy(schedule.tiles);
  std::vector<std::vector<Interval>> receive_busy(schedule.tiles);
  std::vector<std::uint32_t> senders(schedule.chips, 0);
  std::vector<char> sends(schedule.tiles, 0);
  std::vector<std::uint32_t> pending;
  std::vector<char> counted(step.sends.size(), 0);
  for (const std::uint32_t i : internal) {
    const Transfer& t = transfers[i];
    if (sends[t.src] == 0) {
      sends[t.src] = 1;
      ++senders[schedule.chip_of(t.src)];
    }
    if (dynamic(t)) {
      pending.push_back(i);
      continue;
    }
    receive_busy[t.dst].emplace_back(t.arrival_start, t.arrival_end);
    if (counted[t.send] == 0) { // a multicast drives its legs at once
      counted[t.send] = 1;
      send_busy[t.src].emplace_back(t.send_start, t.send_end);
    }
  }
  for (auto* ports : {&send_busy, &receive_busy}) {
    for (auto& busy : *ports) {
      std::sort(busy.begin(), busy.end());
    }
  }
  std::sort(pending.begin(), pending.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Cycles x = transfers[a].send_start;
    const Cycles y = transfers[b].send_start;
    return x != y ? x < y : a < b;
  });
  // The legs of one multicast leave together: the send port is booked once per send.
  std::vector<Cycles> send_start(step.sends.size(), 0);
  std::vector<char> placed(step.sends.size(), 0);
  for (const std::uint32_t i : pending) {
    Transfer& t = transfers[i];
    const Cycles duration = t.send_end - t.send_start;
    if (placed[t.send] == 0) {
      placed[t.send] = 1;
      send_start[t.send] = place(send_busy[t.src], t.send_start, duration);
    }
    t.send_start = send_start[t.send];
    t.send_end = t.send_start + duration;
  }
  // Receive ports serve the streams in the order they leave (first come, first served).
  std::sort(pending.begin(), pending.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Cycles x = transfers[a].send_start;
    const Cycles y = transfers[b].send_start;
    return x != y ? x < y : a < b;
  });
  const double chip_tiles = fabric.chip.tiles;
  for (const std::uint32_t i : pending) {
    Transfer& t = transfers[i];
    const Cycles duration = t.send_end - t.send_start;
    const Cycles base = places.latency(t.src, t.dst);
    const double load = std::min(1.0, senders[schedule.chip_of(t.src)] / chip_tiles);
    // Rounded to the nearest cycle: one sender on a big chip adds nothing.
    const auto extra = static_cast<Cycles>(std::llround(
        static_cast<double>(base) * fabric.exchange.load_latency_percent / 100.0 * load));
    t.arrival_start = place(receive_busy[t.dst], t.send_start + base + extra, duration);
    t.arrival_end = t.arrival_start + duration;
  }
}

} // namespace

TilePlaces::TilePlaces(const Schedule& schedule, const Fabric& fabric)
    : base_(fabric.exchange.latency_base_cycles), per_hop_(fabric.exchange.latency_cycles_per_hop) {
  places_.reserve(schedule.tiles);
  for (TileId t = 0; t < schedule.tiles; ++t) {
    const GridPosition at = fabric.position(schedule.chip_tile_of(t));
    places_.push_back({schedule.chip_of(t), at.column, at.row});
  }
}

void time_on_chip(const ResolvedSuperstep& step, const Resolver& resolver, const Fabric& fabric,
                  const TilePlaces& places, std::span<const Cycles> exchange_start,
                  std::span<const Cycles> compute_end, std::vector<Transfer>& transfers,
                  Diagnostics& diagnostics, ExchangeScratch& scratch) {
  const Schedule& schedule = resolver.schedule();
  const SuperstepTemplate& tpl = *step.step;
  auto& internal = scratch.order;
  internal.clear();
  bool any_dynamic = false;
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    Transfer& t = transfers[i];
    if (t.external) {
      continue;
    }
    const ResolvedSend& send = step.sends[t.send];
    t.send_start = exchange_start[t.src] + send.cycle;
    t.send_end = t.send_start + fabric.on_chip_transfer_cycles(t.bytes);
    t.arrival_start = t.send_start + places.latency(t.src, t.dst);
    t.arrival_end = t.arrival_start + (t.send_end - t.send_start);
    if (t.bytes > 0) {
      internal.push_back(i);
      any_dynamic = any_dynamic || tpl.sends[send.entry].timing == SendTiming::kDynamic;
    }
  }
  if (any_dynamic) {
    time_dynamic(step, schedule, fabric, places, transfers, internal);
  }

  // Receive ports: per destination, by arrival.
  sort_by_tile(
      internal, [&](std::uint32_t i) { return transfers[i].dst; },
      [&](std::uint32_t a, std::uint32_t b) {
        const Transfer& x = transfers[a];
        const Transfer& y = transfers[b];
        return x.arrival_start != y.arrival_start ? x.arrival_start < y.arrival_start : a < b;
      },
      schedule.tiles, scratch.counts, scratch.spare_order);
  const Transfer* reach = nullptr; // the arrival reaching furthest at the current destination
  for (const std::uint32_t i : internal) {
    const Transfer& t = transfers[i];
    const std::string& entry = tpl.receives[step.receives[t.recv].entry].name;
    if (!compute_end.empty() && t.arrival_start < compute_end[t.dst]) {
      diagnostics.add(resolver.diagnostic(
          "arrives-during-compute", step.index, t.dst, entry,
          "data from tile " + std::to_string(t.src) + " arrives at cycle " +
              std::to_string(t.arrival_start) + " while this tile computes until cycle " +
              std::to_string(compute_end[t.dst]) +
              " (barrier variant (b) does not wait for compute to finish)"));
    }
    if (reach != nullptr && reach->dst == t.dst && reach->arrival_end > t.arrival_start) {
      const Cycles phase = exchange_start[t.dst];
      diagnostics.add(resolver.diagnostic(
          "receive-port-conflict", step.index, t.dst, entry,
          "receive-port conflict: words from tile " + std::to_string(t.src) +
              " arrive in exchange cycles " + cycles(t.arrival_start, t.arrival_end, phase) +
              " while entry '" + tpl.receives[step.receives[reach->recv].entry].name +
              "' still receives from tile " + std::to_string(reach->src) + " in cycles " +
              cycles(reach->arrival_start, reach->arrival_end, phase)));
    }
    if (reach == nullptr || reach->dst != t.dst || reach->arrival_end < t.arrival_end) {
      reach = &t;
    }
  }

  // Send ports: per source, one interval per send (a multicast drives all its legs at once).
  auto& by_send = scratch.order2;
  by_send.assign(internal.begin(), internal.end());
  sort_by_tile(
      by_send, [&](std::uint32_t i) { return transfers[i].src; },
      [&](std::uint32_t a, std::uint32_t b) {
        const Transfer& x = transfers[a];
        const Transfer& y = transfers[b];
        return x.send_start != y.send_start ? x.send_start < y.send_start : x.send < y.send;
      },
      schedule.tiles, scratch.counts, scratch.spare_order);
  const Transfer* last = nullptr;
  for (const std::uint32_t i : by_send) {
    const Transfer& t = transfers[i];
    if (last != nullptr && last->src == t.src && last->send != t.send &&
        last->send_end > t.send_start) {
      const Cycles phase = exchange_start[t.src];
      diagnostics.add(resolver.diagnostic(
          "send-port-conflict", step.index, t.src, tpl.sends[step.sends[t.send].entry].name,
          "send-port conflict: sends in exchange cycles " +
              cycles(t.send_start, t.send_end, phase) + " while entry '" +
              tpl.sends[step.sends[last->send].entry].name + "' still sends in cycles " +
              cycles(last->send_start, last->send_end, phase)));
    }
    if (last == nullptr || last->src != t.src || last->send_end < t.send_end) {
      last = &t;
    }
  }
}

} // namespace s2p::sim::detail
