#include "external/external_exchange.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace s2p::sim::detail {

namespace {

/// A packet resent this often means the loss probability is unusable, not bad luck.
constexpr std::uint32_t kMaxAttempts = 100000;

} // namespace

ExternalExchange::ExternalExchange(const Fabric& fabric, const Schedule& schedule,
                                   std::uint64_t seed, std::vector<LinkStats>& links,
                                   std::vector<XbStats>& xbs, TraceRecorder* trace)
    : fabric_(fabric), schedule_(schedule), routing_(fabric), random_(seed), links_(links),
      xbs_(xbs), trace_(trace), tiles_(schedule.tiles), xb_(fabric.chips),
      link_free_(routing_.links().size(), 0), emit_cycles_(schedule.tiles, 0),
      threshold_(fabric.xoff_threshold()), low_water_(fabric.xoff_threshold() / 2),
      hold_until_ack_(fabric.xb_holds_until_ack()) {
  links_.clear();
  for (const ExternalLink& link : routing_.links()) {
    LinkStats stats;
    stats.name = link.name;
    stats.from_chip = link.from_chip;
    stats.to_chip = link.to_chip;
    links_.push_back(stats);
  }
  xbs_.assign(fabric.chips, XbStats{});
  for (std::uint32_t c = 0; c < fabric.chips; ++c) {
    xbs_[c].chip = c;
  }
}

Cycles ExternalExchange::packet_cycles(std::uint32_t payload, std::uint32_t bytes_per_cycle) const {
  const Cycles bytes = static_cast<Cycles>(fabric_.external.header_bytes) + payload;
  return (bytes + bytes_per_cycle - 1) / bytes_per_cycle;
}

void ExternalExchange::schedule(Cycles time, EventType type, std::uint32_t a, std::uint32_t b) {
  events_.push({time, seq_++, type, a, b});
}

void ExternalExchange::run_phase(std::vector<Transfer>& transfers,
                                 const std::vector<Cycles>& port_free,
                                 const std::vector<Cycles>& xreq_time, const DeliverFn& deliver) {
  transfers_ = &transfers;
  deliver_ = &deliver;
  if (events_.empty()) {
    packets_.clear(); // nothing in flight refers to old packets any more
  }

  // Packetise, per sending tile in transfer order; collect the tiles each XREQ names.
  std::vector<std::vector<TileId>> senders(fabric_.chips);
  const std::uint32_t max_payload = fabric_.external.max_payload_bytes;
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    Transfer& t = transfers[i];
    if (!t.external) {
      continue;
    }
    if (t.bytes == 0) {
      t.send_start = t.send_end = t.arrival_start = t.arrival_end = port_free[t.src];
      continue;
    }
    TileState& tile = tiles_[t.src];
    if (tile.to_emit.empty()) {
      senders[schedule_.chip_of(t.src)].push_back(t.src);
      tile.next = 0;
      tile.on = false;
      tile.emit_pending = false;
      tile.port_free = port_free[t.src];
    }
    t.send_start = t.arrival_start = std::numeric_limits<Cycles>::max();
    t.send_end = t.arrival_end = 0;
    for (std::uint64_t offset = 0; offset < t.bytes; offset += max_payload) {
      const auto payload =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(max_payload, t.bytes - offset));
      packets_.push_back(
          {i, offset, payload, t.src, schedule_.chip_of(t.src), schedule_.chip_of(t.dst)});
      tile.to_emit.push_back(static_cast<std::uint32_t>(packets_.size() - 1));
      ++undelivered_;
    }
    tile.not_arrived = tile.to_emit.size();
  }

  for (std::uint32_t chip = 0; chip < fabric_.chips; ++chip) {
    auto& tiles = senders[chip];
    if (tiles.empty()) {
      continue;
    }
    std::sort(tiles.begin(), tiles.end());
    Xb& xb = xb_[chip];
    xb.grants.insert(xb.grants.end(), tiles.begin(), tiles.end());
    schedule(xreq_time[chip] + fabric_.xb.control_latency_cycles, EventType::kXreq, chip);
  }

  while (undelivered_ > 0) {
    if (events_.empty()) {
      throw std::logic_error("external exchange stalled with " + std::to_string(undelivered_) +
                             " packets undelivered");
    }
    const Event event = events_.top();
    events_.pop();
    handle(event);
  }
  for (std::uint32_t chip = 0; chip < fabric_.chips; ++chip) {
    for (const TileId t : senders[chip]) {
      tiles_[t].to_emit.clear();
    }
  }
  transfers_ = nullptr;
  deliver_ = nullptr;
}

void ExternalExchange::drain() {
  while (!events_.empty()) {
    const Event event = events_.top();
    events_.pop();
    handle(event);
  }
}

void ExternalExchange::handle(const Event& e) {
  switch (e.type) {
  case EventType::kXreq:
    ++xbs_[e.a].xreq;
    grant_next(e.a, e.time);
    break;
  case EventType::kXon: {
    TileState& tile = tiles_[e.a];
    tile.on = true;
    if (!tile.emit_pending && tile.next < tile.to_emit.size()) {
      tile.emit_pending = true;
      schedule(std::max(e.time, tile.port_free), EventType::kEmit, e.a);
    }
    break;
  }
  case EventType::kXoff:
    tiles_[e.a].on = false;
    break;
  case EventType::kEmit:
    emit(e.a, e.time);
    break;
  case EventType::kXbArrive:
    xb_arrive(e.a, e.time);
    break;
  case EventType::kTransmit:
    transmit(e.a, e.time);
    break;
  case EventType::kHop:
    hop(e.a, e.b, e.time);
    break;
  case EventType::kDeliver:
    deliver(e.a, e.time);
    break;
  case EventType::kAck:
    ack(e.a, e.time);
    break;
  case EventType::kTimeout:
    timeout(e.a, e.b, e.time);
    break;
  }
}

void ExternalExchange::grant_next(std::uint32_t chip, Cycles now) {
  // Fills the free grants, in XREQ order; a tile granted while the others are held back by flow
  // control waits with them for the next XON.
  Xb& xb = xb_[chip];
  while (xb.granted.size() < fabric_.xb.concurrent_grants && xb.next_grant < xb.grants.size()) {
    const TileId tile = xb.grants[xb.next_grant++];
    if (tiles_[tile].next < tiles_[tile].to_emit.size()) {
      if (xb.granted.empty()) {
        xb.withheld = xb.occupancy >= threshold_;
      }
      xb.granted.push_back(tile);
      tiles_[tile].grant_start = now;
      if (!xb.withheld) {
        send_xon(chip, tile, now);
      }
    }
  }
  if (xb.granted.empty()) {
    xb.grants.clear();
    xb.next_grant = 0;
  }
}

void ExternalExchange::send_xon(std::uint32_t chip, TileId tile, Cycles now) {
  ++xbs_[chip].xon;
  schedule(now + fabric_.xb.control_latency_cycles, EventType::kXon, tile);
}

void ExternalExchange::emit(TileId tile_id, Cycles now) {
  TileState& tile = tiles_[tile_id];
  tile.emit_pending = false;
  if (!tile.on || tile.next >= tile.to_emit.size()) {
    return; // paused by XOFF: the next XON restarts emission
  }
  const std::uint32_t id = tile.to_emit[tile.next++];
  const Packet& packet = packets_[id];
  const Cycles duration = packet_cycles(packet.payload, fabric_.exchange.send_bytes_per_cycle);
  Transfer& t = (*transfers_)[packet.transfer];
  t.send_start = std::min(t.send_start, now);
  t.send_end = std::max(t.send_end, now + duration);
  tile.port_free = now + duration;
  emit_cycles_[tile_id] += duration;
  schedule(now + duration + fabric_.xb.control_latency_cycles, EventType::kXbArrive, id);
  if (tile.next < tile.to_emit.size()) {
    tile.emit_pending = true;
    schedule(now + duration, EventType::kEmit, tile_id);
  }
}

void ExternalExchange::xb_arrive(std::uint32_t id, Cycles now) {
  const Packet& packet = packets_[id];
  const std::uint32_t chip = packet.src_chip;
  Xb& xb = xb_[chip];
  XbStats& stats = xbs_[chip];
  ++xb.occupancy;
  ++stats.packets;
  stats.max_occupancy = std::max(stats.max_occupancy, xb.occupancy);
  if (xb.occupancy > fabric_.xb.queue_packets) {
    // The XOFF threshold is meant to make this impossible; reaching it is a bug in the model.
    throw std::logic_error("XB queue of chip " + std::to_string(chip) + " overflowed (" +
                           std::to_string(xb.occupancy) + " > " +
                           std::to_string(fabric_.xb.queue_packets) + " packets)");
  }
  if (trace_ != nullptr) {
    trace_->xb_queue(chip, now, xb.occupancy);
  }
  xb.tx_queue.push_back(id);
  TileState& tile = tiles_[packet.src];
  --tile.not_arrived;
  const auto granted = std::find(xb.granted.begin(), xb.granted.end(), packet.src);
  if (granted != xb.granted.end()) {
    if (tile.not_arrived == 0) {
      // S4/S5: XOFF after the tile's last packet, XON to the next tile.
      ++stats.xoff_end_of_grant;
      schedule(now + fabric_.xb.control_latency_cycles, EventType::kXoff, packet.src);
      stats.grant_cycles += now - tile.grant_start;
      if (trace_ != nullptr) {
        trace_->xb_grant(chip, packet.src, tile.grant_start, now);
      }
      xb.granted.erase(granted);
      grant_next(chip, now);
    } else if (!xb.withheld && xb.occupancy >= threshold_) {
      xb.withheld = true;
      for (const TileId t : xb.granted) {
        ++stats.xoff_flow_control;
        schedule(now + fabric_.xb.control_latency_cycles, EventType::kXoff, t);
      }
    }
  }
  try_transmit(chip, now);
}

std::uint32_t ExternalExchange::free_link(std::uint32_t link) const {
  std::uint32_t best = link;
  for (const std::uint32_t candidate : routing_.parallel(link)) {
    if (link_free_[candidate] < link_free_[best]) {
      best = candidate;
    }
  }
  return best;
}

void ExternalExchange::try_transmit(std::uint32_t chip, Cycles now) {
  Xb& xb = xb_[chip];
  if (xb.tx_pending || xb.tx_queue.empty()) {
    return;
  }
  xb.tx_pending = true;
  Cycles at = std::max(now, xb.tx_free);
  if (fabric_.xb.transmit == XbTransmit::kParallel) {
    // The packet leaves the queue when a link towards its next chip is free.
    const Packet& packet = packets_[xb.tx_queue.front()];
    const auto& route = routing_.route(packet.src_chip, packet.dst_chip);
    at = std::max(at, link_free_[free_link(route.front())]);
  }
  schedule(at, EventType::kTransmit, chip);
}

void ExternalExchange::transmit(std::uint32_t chip, Cycles now) {
  Xb& xb = xb_[chip];
  xb.tx_pending = false;
  const std::uint32_t id = xb.tx_queue.front();
  xb.tx_queue.pop_front();
  if (packets_[id].acked) {
    try_transmit(chip, now); // a resend made moot by a late acknowledgement
    return;
  }
  const auto& route = routing_.route(packets_[id].src_chip, packets_[id].dst_chip);
  const Cycles start = std::max(now, link_free_[free_link(route.front())]);
  hop(id, 0, now);
  if (fabric_.xb.transmit == XbTransmit::kSerial) {
    xb.tx_free = start + packet_cycles(packets_[id].payload, fabric_.external.bytes_per_cycle);
  }
  if (hold_until_ack_) {
    // The timeout is per link hop: an acknowledgement from two chips away takes twice as long.
    schedule(start + fabric_.external.resend_timeout_cycles * route.size(), EventType::kTimeout,
             id, packets_[id].attempt);
  } else {
    packets_[id].acked = true; // on the link: its queue slot is free
    release(chip, now);
  }
  try_transmit(chip, std::max(now, xb.tx_free));
}

void ExternalExchange::hop(std::uint32_t id, std::uint32_t index, Cycles now) {
  const Packet& packet = packets_[id];
  const auto& route = routing_.route(packet.src_chip, packet.dst_chip);
  const std::uint32_t link = free_link(route[index]);
  const Cycles start = std::max(now, link_free_[link]);
  const Cycles duration = packet_cycles(packet.payload, fabric_.external.bytes_per_cycle);
  link_free_[link] = start + duration;
  LinkStats& stats = links_[link];
  ++stats.packets;
  stats.bytes += fabric_.external.header_bytes + packet.payload;
  stats.busy_cycles += duration;
  if (fabric_.external.loss_probability > 0 &&
      random_.uniform() < fabric_.external.loss_probability) {
    ++stats.lost; // the XB's timeout resends it
    return;
  }
  Cycles arrive = start + duration + fabric_.external.latency_cycles;
  if (index + 1 < route.size()) {
    schedule(arrive, EventType::kHop, id, index + 1);
    return;
  }
  if (fabric_.external.reorder_window_cycles > 0) {
    arrive += random_.up_to(fabric_.external.reorder_window_cycles);
  }
  schedule(arrive, EventType::kDeliver, id);
}

void ExternalExchange::deliver(std::uint32_t id, Cycles now) {
  Packet& packet = packets_[id];
  if (packet.delivered) {
    ++xbs_[packet.src_chip].duplicates_dropped;
  } else {
    packet.delivered = true;
    Transfer& t = (*transfers_)[packet.transfer];
    t.arrival_start = std::min(t.arrival_start, now);
    t.arrival_end = std::max(t.arrival_end, now);
    (*deliver_)(packet.transfer, packet.offset, packet.payload);
    --undelivered_;
  }
  if (hold_until_ack_) {
    const auto hops = routing_.route(packet.src_chip, packet.dst_chip).size();
    schedule(now + fabric_.external.latency_cycles * hops, EventType::kAck, id);
  }
}

void ExternalExchange::ack(std::uint32_t id, Cycles now) {
  Packet& packet = packets_[id];
  if (packet.acked) {
    return;
  }
  packet.acked = true;
  release(packet.src_chip, now);
}

void ExternalExchange::release(std::uint32_t chip, Cycles now) {
  Xb& xb = xb_[chip];
  --xb.occupancy;
  if (trace_ != nullptr) {
    trace_->xb_queue(chip, now, xb.occupancy);
  }
  if (!xb.granted.empty() && xb.withheld && xb.occupancy <= low_water_) {
    xb.withheld = false;
    for (const TileId t : xb.granted) {
      send_xon(chip, t, now);
    }
  }
}

void ExternalExchange::timeout(std::uint32_t id, std::uint32_t attempt, Cycles now) {
  Packet& packet = packets_[id];
  if (packet.acked || attempt != packet.attempt) {
    return;
  }
  if (++packet.attempt >= kMaxAttempts) {
    throw InputError("external link: a packet was resent " + std::to_string(kMaxAttempts) +
                     " times; external.loss_probability " +
                     std::to_string(fabric_.external.loss_probability) + " is too high");
  }
  ++xbs_[packet.src_chip].resent;
  xb_[packet.src_chip].tx_queue.push_front(id);
  try_transmit(packet.src_chip, now);
}

} // namespace s2p::sim::detail
