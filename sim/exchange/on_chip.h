// On-chip exchange: time-deterministic and headerless. A transfer's words leave
// the sender from `exchange start + send cycle` at the fabric's send rate and arrive
// `base + per_hop * hops` cycles later; nothing is negotiated at run time, so the simulator
// checks what the hardware would silently get wrong: a tile's one receive port taking words from
// two senders in the same cycle, or one send port driving two streams at once.
// Sends with dynamic timing (`"timing": "dynamic"`: timing the schedule leaves to run time) are
// the exception: their `cycle` is the earliest start, they wait for their ports (in the gaps the
// fixed transfers leave, first come first served) and their latency grows with the share of the
// chip's tiles sending in the phase (`exchange.load_latency_percent`). Contention delays them;
// it never makes a fixed transfer move, and conflicts among fixed transfers stay errors.
#pragma once

#include <span>
#include <vector>

#include "exchange/transfers.h"
#include "seq2par/sim/fabric.h"

namespace s2p::sim::detail {

/// Where each tile of a schedule sits: its chip and its position on the chip's grid, computed
/// once per run. Timing a transfer then costs no division (the chip, the tile within it and the
/// serpentine position each took one per transfer end, which made the latency a measurable
/// part of every superstep).
class TilePlaces {
public:
  TilePlaces(const Schedule& schedule, const Fabric& fabric);
  [[nodiscard]] std::uint32_t chip(TileId tile) const { return places_[tile].chip; }
  /// Fabric::on_chip_latency between two tiles of one chip.
  [[nodiscard]] Cycles latency(TileId a, TileId b) const {
    const Place& x = places_[a];
    const Place& y = places_[b];
    const auto distance = [](std::uint32_t u, std::uint32_t v) {
      return u > v ? u - v : v - u;
    };
    return base_ + per_hop_ * (distance(x.column, y.column) + distance(x.row, y.row));
  }

private:
  struct Place {
    std::uint32_t chip;
    std::uint32_t column;
    std::uint32_t row;
  };
  std::vector<Place> places_;
  Cycles base_;
  Cycles per_hop_;
};

/// Fills the timing of every internal transfer and reports port conflicts as intervals
/// [arrival, arrival + bytes / rate) that overlap (one comparison per neighbouring pair after a
/// sort, never a loop over words or cycles). With `compute_end` given (barrier variant (b)
/// alone), a transfer arriving while the receiver still computes is an error too.
void time_on_chip(const ResolvedSuperstep& step, const Resolver& resolver, const Fabric& fabric,
                  const TilePlaces& places, std::span<const Cycles> exchange_start,
                  std::span<const Cycles> compute_end, std::vector<Transfer>& transfers,
                  Diagnostics& diagnostics, ExchangeScratch& scratch);

} // namespace s2p::sim::detail
