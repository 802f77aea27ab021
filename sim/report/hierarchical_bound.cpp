// The bound of a hierarchical collective: one ring bound per level, summed.
//
// Within each chip the level is the flat ring's bound over the chip's P tiles (on-chip send rate,
// slowest on-chip ring hop, on-chip barrier). Across chips, what limits a step is the chip's
// exchange block (XB) and its links, not a tile's port:
//  - emission: the XB grants up to G tiles at a time (xb.concurrent_grants); a grant costs XON,
//    the tile's packets with their headers at the tile's rate, and the last packet reaching the
//    XB: 2 control latencies. Handing grants to the first free slot in XREQ order gives the
//    emission's makespan (G = 1: the sum over tiles);
//  - links: the packets' wire time over the links towards their next chip (several with
//    external.links_per_chip and parallel transmission, one at a time with serial);
//  - acknowledgements, when the XB holds every packet until its acknowledgement returns: grants
//    pause when the queue reaches the XOFF threshold T until acknowledgements drain it to T/2.
//    With packets reaching the XB every d cycles (the makespan over the packets) and an
//    acknowledgement taking R (link time plus the link latency both ways), the queue lets T
//    packets through per R + (T - T/2) d cycles: the first T arrive unhindered, the grant then
//    waits until T/2 are acknowledged (R after the first of them), and the next T/2 arrive while
//    the rest of the previous burst is acknowledged.
// A step is then
//   barrier + XREQ + the busiest chip's packets at the slowest of those paces + the last
//   packet's link time and latency,
// its pace being B in `(N-1)/N * S/B` and the rest L. The bound assumes an empty XB queue at
// each step and no loss; it is the model's own cost, so it moves with the external model.
#include <algorithm>
#include <functional>
#include <queue>

#include "seq2par/sim/collectives.h"
#include "seq2par/sim/report.h"

namespace s2p::sim {

namespace {

/// Packets and emission time of one chip in one step across chips.
struct ChipLoad {
  std::uint64_t packets = 0;
  std::uint64_t payload = 0;
  Cycles emit = 0; ///< at the tile's rate, headers and the grant's two control latencies included
  std::vector<Cycles> tile_emit; ///< the same per granted tile, in XREQ (tile) order
  Cycles wire_forward = 0;       ///< link cycles of the packets towards chip c + 1
  Cycles wire_backward = 0;      ///< and towards chip c - 1
};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

Cycles add_transfer(ChipLoad& load, std::uint64_t bytes, const Fabric& f, bool forward) {
  const std::uint64_t max_payload = f.external.max_payload_bytes;
  Cycles emit = 0;
  for (std::uint64_t offset = 0; offset < bytes; offset += max_payload) {
    const std::uint64_t payload = std::min(max_payload, bytes - offset);
    emit += ceil_div(f.external.header_bytes + payload, f.exchange.send_bytes_per_cycle);
    (forward ? load.wire_forward : load.wire_backward) +=
        ceil_div(f.external.header_bytes + payload, f.external.bytes_per_cycle);
    load.payload += payload;
    ++load.packets;
  }
  load.emit += emit;
  return emit;
}

/// Bytes of fragment k of n (halves: 0 whole, 1 first, 2 second) over `elements` elements.
std::uint64_t fragment_bytes(std::uint64_t k, std::uint64_t n, std::uint64_t elements, int half,
                             std::size_t size) {
  const std::uint64_t count = (k + 1) * elements / n - k * elements / n;
  return (half == 0 ? count : half == 1 ? count / 2 : count - count / 2) * size;
}

/// What chip c's tiles send in step s of the ring across chips (reduce-scatter or all-gather),
/// with the generator's rotations (owner_offset -1: c = 0, cb = 2 mod C).
ChipLoad chip_load(const Schedule& s, const CollectiveInfo& info, const Fabric& f,
                   std::uint64_t chip, std::uint64_t step, bool reduce) {
  const std::uint64_t chips = s.chips;
  const std::uint64_t p = s.tiles_per_chip;
  const std::uint64_t elements = info.bytes / element_size(info.type);
  const std::uint64_t cb = 2 % chips;
  const std::uint64_t forward =
      reduce ? (chip + chips - step % chips) % chips : (chip + 1 + chips - step % chips) % chips;
  const std::uint64_t backward =
      reduce ? (chip + step + cb) % chips : (chip + cb - 1 + step + chips) % chips;
  // With the flat ring's placement (an all-gather), ring fragment r of index t is global
  // fragment ((r - 1) mod C) P + t + 1 mod N (collectives/ring.cpp).
  const bool ring_placed = placement_of(info) == FragmentPlacement::kRing;
  ChipLoad load;
  for (std::uint64_t t = 0; t < p; ++t) {
    const std::uint64_t j = (t + 1) % p;
    const std::size_t size = element_size(info.type);
    const std::uint64_t before = load.packets;
    const std::uint64_t fragment =
        ring_placed ? ((forward + chips - 1) % chips * p + t + 1) % s.tiles : j * chips + forward;
    Cycles emit = add_transfer(
        load, fragment_bytes(fragment, s.tiles, elements, info.bidirectional ? 1 : 0, size), f,
        true);
    if (info.bidirectional) {
      emit += add_transfer(load, fragment_bytes(j * chips + backward, s.tiles, elements, 2, size),
                           f, chips == 2);
    }
    if (load.packets > before) {
      load.emit += 2 * f.xb.control_latency_cycles; // XON to the tile, its last packet to the XB
      load.tile_emit.push_back(emit + 2 * f.xb.control_latency_cycles);
    }
  }
  return load;
}

/// When the last grant ends, with grants handed in order to the first of G free slots.
Cycles emission_makespan(const ChipLoad& load, std::uint32_t grants) {
  std::priority_queue<Cycles, std::vector<Cycles>, std::greater<>> slots;
  for (std::uint32_t i = 0; i < std::max(1u, grants); ++i) {
    slots.push(0);
  }
  Cycles end = 0;
  for (const Cycles emit : load.tile_emit) {
    const Cycles start = slots.top();
    slots.pop();
    slots.push(start + emit);
    end = std::max(end, start + emit);
  }
  return end;
}

/// Cycles the links towards the chip's neighbours take for its packets, at `lanes` links each.
Cycles link_time(const ChipLoad& load, const Fabric& f, std::uint64_t forward_lanes,
                 std::uint64_t backward_lanes) {
  if (f.xb.transmit == XbTransmit::kSerial) {
    return load.wire_forward + load.wire_backward; // one packet at a time
  }
  return std::max(ceil_div(load.wire_forward, forward_lanes),
                  ceil_div(load.wire_backward, backward_lanes));
}

/// Cycles from the first grant to the last packet at the XB (or on a link), for a chip's load.
Cycles xb_pace(const ChipLoad& load, const Fabric& f, Cycles ack_round_trip, Cycles links,
               bool& limited) {
  if (load.packets == 0) {
    return 0;
  }
  const Cycles emit = emission_makespan(load, f.xb.concurrent_grants);
  const Cycles unhindered = std::max(emit, links);
  if (!f.xb_holds_until_ack()) {
    return unhindered;
  }
  const double d = static_cast<double>(emit) / static_cast<double>(load.packets);
  const std::uint64_t t = std::max<std::uint32_t>(1, f.xoff_threshold());
  const std::uint64_t low = f.xoff_threshold() / 2;
  const double period = static_cast<double>(ack_round_trip) + static_cast<double>(t - low) * d;
  if (load.packets <= t || static_cast<double>(t) * d >= period) {
    return unhindered;
  }
  limited = true;
  const std::uint64_t windows = (load.packets - 1) / t;
  return std::max(links,
                  static_cast<Cycles>(static_cast<double>(windows) * period +
                                      static_cast<double>(load.packets - windows * t) * d));
}

LevelBound within_chip(const Schedule& s, const CollectiveInfo& info, const Fabric& f,
                       std::uint64_t phases) {
  LevelBound level;
  level.scope = LevelScope::kWithinChip;
  RingBound& b = level.ring;
  b.n = s.tiles_per_chip;
  b.s = info.bytes;
  b.b = f.exchange.send_bytes_per_cycle;
  Cycles slowest = 0;
  for (std::uint32_t i = 0; i < s.tiles_per_chip && s.tiles_per_chip > 1; ++i) {
    slowest = std::max(slowest, f.on_chip_latency(i, (i + 1) % s.tiles_per_chip));
  }
  b.hop_latency = static_cast<double>(slowest);
  b.barrier = static_cast<double>(f.barrier_cycles(s.tiles_per_chip, 1));
  b.l = b.hop_latency + b.barrier;
  b.steps = phases * (b.n - 1);
  b.formula = phases == 2 ? "2*(N-1)/N*S/B + 2*(N-1)*L" : "(N-1)/N*S/B + (N-1)*L";
  b.bandwidth_term =
      static_cast<double>(b.steps) / static_cast<double>(b.n) * static_cast<double>(b.s) / b.b;
  b.latency_term = static_cast<double>(b.steps) * b.l;
  b.bound_cycles = b.bandwidth_term + b.latency_term;
  return level;
}

LevelBound across_chips(const Schedule& s, const CollectiveInfo& info, const Fabric& f,
                        bool reduce_scatter, bool all_gather) {
  LevelBound level;
  level.scope = LevelScope::kAcrossChips;
  RingBound& b = level.ring;
  b.n = s.chips;
  b.s = info.bytes;
  const RoutingTable routing(f);
  std::size_t hops = 1;
  for (std::uint32_t c = 0; c < s.chips; ++c) {
    hops = std::max({hops, routing.route(c, (c + 1) % s.chips).size(),
                     routing.route((c + 1) % s.chips, c).size()});
  }
  const Cycles link =
      ceil_div(f.external.header_bytes + f.external.max_payload_bytes, f.external.bytes_per_cycle);
  const Cycles latency = f.external.latency_cycles * hops;
  const Cycles round_trip = link + 2 * latency;
  // Links from chip 0 towards chip 1 and towards chip C-1 (every chip has as many).
  const std::uint64_t forward_lanes = routing.parallel(routing.route(0, 1 % s.chips).front()).size();
  const std::uint64_t backward_lanes =
      routing.parallel(routing.route(0, s.chips - 1).front()).size();
  for (const bool reduce : {true, false}) {
    if (!(reduce ? reduce_scatter : all_gather)) {
      continue;
    }
    for (std::uint64_t step = 0; step + 1 < s.chips; ++step) {
      Cycles busiest = 0;
      for (std::uint64_t c = 0; c < s.chips; ++c) {
        const ChipLoad load = chip_load(s, info, f, c, step, reduce);
        level.packets_per_step = std::max(level.packets_per_step, load.packets);
        busiest = std::max(
            busiest, xb_pace(load, f, round_trip, link_time(load, f, forward_lanes, backward_lanes),
                             level.window_limited));
      }
      b.bandwidth_term += static_cast<double>(busiest);
      ++b.steps;
    }
  }
  b.hop_latency = static_cast<double>(link + latency + f.xb.control_latency_cycles);
  b.barrier = static_cast<double>(f.barrier_cycles(s.tiles_per_chip, s.chips));
  b.l = b.hop_latency + b.barrier;
  // The ring formula holds with B the rate the XB's pace gives (its definition just below).
  b.formula = b.steps == 2 * (b.n - 1) ? "2*(N-1)/N*S/B + 2*(N-1)*L" : "(N-1)/N*S/B + (N-1)*L";
  // B: the bytes a chip sends per cycle at the pace found, (steps/N * S) / bandwidth term.
  b.b = b.bandwidth_term > 0 ? static_cast<double>(b.steps) / static_cast<double>(b.n) *
                                   static_cast<double>(b.s) / b.bandwidth_term
                             : 0;
  b.latency_term = static_cast<double>(b.steps) * b.l;
  b.bound_cycles = b.bandwidth_term + b.latency_term;
  return level;
}

} // namespace

std::optional<HierarchicalBound> hierarchical_bound(const Schedule& schedule, const Fabric& fabric,
                                                    Cycles total_cycles) {
  if (!schedule.collective ||
      schedule.collective->algorithm != CollectiveAlgorithm::kHierarchical) {
    return std::nullopt;
  }
  const CollectiveInfo& info = *schedule.collective;
  const bool reduce_scatter = info.kind != "all-gather";
  const bool all_gather = info.kind != "reduce-scatter";
  HierarchicalBound bound;
  bound.levels.push_back(
      within_chip(schedule, info, fabric, (reduce_scatter ? 1 : 0) + (all_gather ? 1 : 0)));
  bound.levels.push_back(across_chips(schedule, info, fabric, reduce_scatter, all_gather));
  for (LevelBound& level : bound.levels) {
    bound.bound_cycles += level.ring.bound_cycles;
    level.ring.ratio = 0; // a level's share of the time is not measured on its own
  }
  bound.ratio = static_cast<double>(total_cycles) / bound.bound_cycles;
  return bound;
}

} // namespace s2p::sim
