#include "exchange/on_chip.h"

#include <algorithm>

namespace s2p::sim::detail {

namespace {

std::string cycles(Cycles from, Cycles to, Cycles phase_start) {
  // '[' rather than "[": GCC 12 reports a false -Wrestrict for a one-character literal plus a
  // temporary std::string (GCC bug 105651).
  return '[' + std::to_string(from - phase_start) + ", " + std::to_string(to - phase_start) + ")";
}

} // namespace

void time_on_chip(const ResolvedSuperstep& step, const Resolver& resolver, const Fabric& fabric,
                  std::span<const Cycles> exchange_start, std::span<const Cycles> compute_end,
                  std::vector<Transfer>& transfers, Diagnostics& diagnostics,
                  ExchangeScratch& scratch) {
  const Schedule& schedule = resolver.schedule();
  const SuperstepTemplate& tpl = *step.step;
  auto& internal = scratch.order;
  internal.clear();
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    Transfer& t = transfers[i];
    if (t.external) {
      continue;
    }
    const ResolvedSend& send = step.sends[t.send];
    t.send_start = exchange_start[t.src] + send.cycle;
    t.send_end = t.send_start + fabric.on_chip_transfer_cycles(t.bytes);
    t.arrival_start = t.send_start + fabric.on_chip_latency(schedule.chip_tile_of(t.src),
                                                            schedule.chip_tile_of(t.dst));
    t.arrival_end = t.arrival_start + (t.send_end - t.send_start);
    if (t.bytes > 0) {
      internal.push_back(i);
    }
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
