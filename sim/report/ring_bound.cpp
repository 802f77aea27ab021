// The ring bound for collective schedules: 2 (N-1)/N * S / B + 2 (N-1) * L for an
// all-reduce (half of each term for reduce-scatter or all-gather alone).
//
// L is the fixed cost of one ring step in this BSP model: the slowest ring hop (on-chip
// `base + hops`, or the external link latency times the route length) plus the barrier every step
// pays. Spec 03 says "step latencies"; we count the barrier in them because a BSP ring cannot
// take a step without one, and say so in the report (the bandwidth term alone is reported too).
#include <algorithm>

#include "seq2par/sim/report.h"

namespace s2p::sim {

std::optional<RingBound> ring_bound(const Schedule& schedule, const Fabric& fabric,
                                    Cycles total_cycles) {
  if (!schedule.collective || schedule.tiles < 2 ||
      schedule.collective->algorithm != CollectiveAlgorithm::kRing) {
    return std::nullopt;
  }
  const CollectiveInfo& info = *schedule.collective;
  const RoutingTable routing(fabric);
  RingBound bound;
  bound.n = schedule.tiles;
  bound.s = info.bytes;
  const bool multi_chip = schedule.chips > 1;
  bound.b = multi_chip
                ? std::min(fabric.exchange.send_bytes_per_cycle, fabric.external.bytes_per_cycle)
                : fabric.exchange.send_bytes_per_cycle;
  Cycles slowest = 0;
  for (TileId i = 0; i < schedule.tiles; ++i) {
    const TileId next = (i + 1) % schedule.tiles;
    const std::uint32_t a = schedule.chip_of(i);
    const std::uint32_t b = schedule.chip_of(next);
    const Cycles hop =
        a == b ? fabric.on_chip_latency(schedule.chip_tile_of(i), schedule.chip_tile_of(next))
               : fabric.external.latency_cycles * routing.route(a, b).size();
    slowest = std::max(slowest, hop);
  }
  bound.hop_latency = static_cast<double>(slowest);
  bound.barrier = static_cast<double>(fabric.barrier_cycles(
      std::min<std::uint64_t>(schedule.tiles, schedule.tiles_per_chip), schedule.chips));
  bound.l = bound.hop_latency + bound.barrier;
  const bool both = info.kind == "allreduce";
  bound.steps = (both ? 2 : 1) * (bound.n - 1);
  bound.formula = both ? "2*(N-1)/N*S/B + 2*(N-1)*L" : "(N-1)/N*S/B + (N-1)*L";
  const double n = static_cast<double>(bound.n);
  bound.bandwidth_term =
      static_cast<double>(bound.steps) / n * static_cast<double>(bound.s) / bound.b;
  bound.latency_term = static_cast<double>(bound.steps) * bound.l;
  bound.bound_cycles = bound.bandwidth_term + bound.latency_term;
  bound.ratio = static_cast<double>(total_cycles) / bound.bound_cycles;
  bound.bandwidth_ratio = static_cast<double>(total_cycles) / bound.bandwidth_term;
  return bound;
}

} // namespace s2p::sim
