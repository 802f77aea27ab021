// External (chip-to-chip) exchange, as the method describes it:
//  - data travels as packets of at most `max_payload_bytes` plus a header carrying the
//    destination tile and address, so packets may arrive in any order;
//  - each chip has one exchange block (XB). The lowest tile of the sync group on the chip sends
//    XREQ listing the tiles with external data; the XB grants XON to up to
//    `xb.concurrent_grants` tiles at a time, sends XOFF after a tile's last packet and then XON
//    to the next tile (S1-S5);
//  - the XB keeps every packet until the far end acknowledges it, so that it can resend
//    (`xb.release` on_ack), or until it is on a link (on_transmit, loss-free links); when its
//    queue would overflow it sends XOFF early to its granted tiles and XON again once it has
//    drained to half the threshold (`Fabric::xoff_threshold`, which leaves room for packets
//    already on the way);
//  - the XB puts one packet at a time on a link (`xb.transmit` serial) or one per free link
//    towards the packet's next chip (parallel);
//  - links may lose packets (seeded); the XB resends after `resend_timeout_cycles`; receivers
//    drop duplicates; links add a seeded 0..reorder_window delay. Nothing is lost end to end.
// It is a discrete-event simulation over packets, driven by a (time, sequence) priority queue,
// so its cost grows with packets, never with idle cycles, and the order of events - hence the
// result - depends only on the inputs and the seed.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "exchange/transfers.h"
#include "report/trace.h"
#include "seq2par/sim/fabric.h"
#include "seq2par/sim/report.h"
#include "support/random.h"

namespace s2p::sim::detail {

class ExternalExchange {
public:
  ExternalExchange(const Fabric& fabric, const Schedule& schedule, std::uint64_t seed,
                   std::vector<LinkStats>& links, std::vector<XbStats>& xbs, TraceRecorder* trace);

  using DeliverFn =
      std::function<void(std::uint32_t transfer, std::uint64_t offset, std::uint64_t bytes)>;

  /// Runs the external transfers of one exchange phase to their last delivery. `port_free[t]` is
  /// when tile t may start emitting (its exchange start, after its on-chip sends);
  /// `xreq_time[c]` is when chip c's designated tile sends XREQ. Fills the timing fields of the
  /// external transfers and calls `deliver` once per packet, at its first delivery.
  void run_phase(std::vector<Transfer>& transfers, const std::vector<Cycles>& port_free,
                 const std::vector<Cycles>& xreq_time, const DeliverFn& deliver);

  /// Processes the acknowledgements still in flight, so the final XB statistics are complete.
  void drain();

  /// Cycles each tile spent emitting external packets (headers included).
  [[nodiscard]] const std::vector<Cycles>& emit_cycles() const { return emit_cycles_; }

private:
  enum class EventType : std::uint8_t {
    kXreq,
    kXon,
    kXoff,
    kEmit,
    kXbArrive,
    kTransmit,
    kHop,
    kDeliver,
    kAck,
    kTimeout
  };
  struct Event {
    Cycles time;
    std::uint64_t seq;
    EventType type;
    std::uint32_t a; ///< chip, tile or packet
    std::uint32_t b; ///< hop or attempt
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : seq > other.seq;
    }
  };
  // The fields with no default are those every initializer must give (an aggregate; the
  // compiler's -Wmissing-field-initializers checks them).
  struct Packet { // NOLINT(cppcoreguidelines-pro-type-member-init)
    std::uint32_t transfer;
    std::uint64_t offset;
    std::uint32_t payload;
    TileId src;
    std::uint32_t src_chip;
    std::uint32_t dst_chip;
    std::uint32_t attempt = 0;
    bool delivered = false;
    bool acked = false;
  };
  struct TileState {
    std::vector<std::uint32_t> to_emit; ///< packet ids, in order
    std::size_t next = 0;
    std::size_t not_arrived = 0; ///< emitted or not, not yet at the XB
    bool on = false;
    bool emit_pending = false;
    Cycles port_free = 0;
    Cycles grant_start = 0;
  };
  struct Xb {
    std::vector<TileId> grants; ///< tiles named by XREQs, in grant order
    std::size_t next_grant = 0;
    std::vector<TileId> granted; ///< the tiles holding a grant, in grant order
    bool withheld = false;       ///< XON withheld (flow control) from the granted tiles
    std::uint32_t occupancy = 0;
    std::deque<std::uint32_t> tx_queue;
    Cycles tx_free = 0;
    bool tx_pending = false;
  };

  void schedule(Cycles time, EventType type, std::uint32_t a, std::uint32_t b = 0);
  void handle(const Event& event);
  void grant_next(std::uint32_t chip, Cycles now);
  void send_xon(std::uint32_t chip, TileId tile, Cycles now);
  void release(std::uint32_t chip, Cycles now);
  /// The link of `link`'s group that is free first (the lowest id on a tie).
  [[nodiscard]] std::uint32_t free_link(std::uint32_t link) const;
  void emit(TileId tile, Cycles now);
  void xb_arrive(std::uint32_t id, Cycles now);
  void try_transmit(std::uint32_t chip, Cycles now);
  void transmit(std::uint32_t chip, Cycles now);
  void hop(std::uint32_t id, std::uint32_t index, Cycles now);
  void deliver(std::uint32_t id, Cycles now);
  void ack(std::uint32_t id, Cycles now);
  void timeout(std::uint32_t id, std::uint32_t attempt, Cycles now);
  [[nodiscard]] Cycles packet_cycles(std::uint32_t payload, std::uint32_t bytes_per_cycle) const;

  const Fabric& fabric_;
  const Schedule& schedule_;
  RoutingTable routing_;
  Random random_;
  std::vector<LinkStats>& links_;
  std::vector<XbStats>& xbs_;
  TraceRecorder* trace_;

  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::vector<Packet> packets_;
  std::vector<TileState> tiles_;
  std::vector<Xb> xb_;
  std::vector<Cycles> link_free_;
  std::vector<Cycles> emit_cycles_;
  std::uint32_t threshold_;
  std::uint32_t low_water_;
  bool hold_until_ack_;

  // The phase being run.
  std::vector<Transfer>* transfers_ = nullptr;
  const DeliverFn* deliver_ = nullptr;
  std::size_t undelivered_ = 0;
};

} // namespace s2p::sim::detail
