// The machine the simulator models: chips of tiles joined by external links.
//
// Every number is a parameter with a GC200-like default; a fabric file overrides any subset
// (see sim/README.md, "Fabric file"). The cost model is deliberately explicit, in the spirit of
// Poplar's IPUModel: nothing is hidden in code that a fabric file cannot change.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/machine_defaults.h"

namespace s2p::sim {

inline constexpr std::string_view kFabricFormat = "seq2par.fabric/1";

enum class Topology {
  kRing, ///< chip c has a forward link to c+1 and a backward link to c-1
  kFull, ///< a direct link between every ordered pair of chips
};

/// When the XB frees a packet's queue slot.
enum class XbRelease {
  kOnAck,      ///< when the far end's acknowledgement returns (the XB can resend a lost packet)
  kOnTransmit, ///< when the packet is on the link (reliable links: no end-to-end resend)
};

/// How the XB puts queued packets on its links.
enum class XbTransmit {
  kSerial,   ///< one packet at a time, on the route's one link
  kParallel, ///< one packet per link at once, on any link towards the route's next chip
};

[[nodiscard]] std::string_view to_string(Topology topology);
[[nodiscard]] std::string_view to_string(XbRelease release);
[[nodiscard]] std::string_view to_string(XbTransmit transmit);


struct GridPosition {
  std::uint32_t column = 0;
  std::uint32_t row = 0;
};

struct Fabric {
  std::string name = "GC200 (built-in default)";
  std::uint32_t chips = 1;

  struct Chip {
    std::uint32_t tiles = kDefaultTilesPerChip;
    /// Tiles are numbered in columns of this height, serpentine (down one column, up the next),
    /// so consecutive tile ids are always neighbours on the grid.
    std::uint32_t tiles_per_column = 64;
    /// Only used to express cycles as seconds in reports.
    std::uint32_t clock_mhz = 1330;
  } chip;

  struct Tile {
    std::uint64_t sram_bytes = kDefaultTileSramBytes;
    std::uint64_t bank_bytes = kDefaultTileBankBytes;
    std::uint32_t threads = kDefaultHardwareThreads;
    /// When true, buffers live at the same time must not share a bank.
    bool separate_banks = false;
  } tile;

  struct Exchange {
    /// Send rate of one tile; a tile's single receive port takes words at the same rate.
    /// 4 bytes x 1472 tiles x 1.33 GHz = 7.8 TB/s: the GC200's 8 TB/s IPU-Exchange.
    std::uint32_t send_bytes_per_cycle = 4;
    std::uint32_t latency_base_cycles = 6;
    std::uint32_t latency_cycles_per_hop = 1;
    /// Extra latency of a send with dynamic timing, in percent of its no-load latency, when
    /// every tile of the chip sends in the phase (scaled by the share of tiles that send).
    /// 24: on-chip latency under full load is 1.24x the no-load latency (Jia et al. 2019).
    std::uint32_t load_latency_percent = 24;
  } exchange;

  struct Sync {
    /// Barrier of a sync group covering a whole chip.
    Cycles on_chip_cycles = 150;
    /// Barrier of a group spanning two chips.
    Cycles cross_chip_cycles = 1500;
    /// A group with fewer tiles on its chip saves this much per halving (the sync tree is
    /// shallower): cost = on_chip_cycles - this * (ceil log2 chip.tiles - ceil log2 group tiles).
    Cycles on_chip_cycles_per_doubling = 10;
    /// A group over more than two chips pays this much more per doubling of its chips.
    Cycles cross_chip_cycles_per_doubling = 250;
  } sync;

  struct External {
    Topology topology = Topology::kRing;
    /// Links out of each chip, shared among its neighbours (ring: the forward link gets the
    /// larger half; full: shared evenly, at least one each). 0: one link per neighbour and
    /// direction (LF/LB, L<a>-<b>), the model before calibration.
    std::uint32_t links_per_chip = 10;
    /// Per link and direction: 24 bytes x 1.33 GHz = 32 GB/s, an IPU-Link.
    std::uint32_t bytes_per_cycle = 24;
    /// Per link hop, one way. Set so that an IPU-Link's latency under full load is 4.0-7.7x its
    /// no-load latency, as Jia et al. (2019) measured; no absolute figure was found.
    Cycles latency_cycles = 600;
    std::uint32_t max_payload_bytes = 256;
    std::uint32_t header_bytes = 16;
    double loss_probability = 0.0; ///< per packet and link traversal, in [0, 1)
    /// Each delivery is delayed by a seeded random 0..window cycles, which reorders packets.
    Cycles reorder_window_cycles = 0;
    /// The XB resends a packet not acknowledged this long (times the hops of its route) after
    /// it was put on the link. Shorter than a round trip gives spurious (harmless) resends.
    Cycles resend_timeout_cycles = 8000;
  } external;

  struct Xb {
    std::uint32_t queue_packets = 2048;
    /// One way, tile <-> XB, for XREQ/XON/XOFF and for data packets on their way to the XB.
    Cycles control_latency_cycles = 16;
    /// Tiles of a chip holding an XON at once (each emits at the tile's send rate).
    std::uint32_t concurrent_grants = 64;
    /// On lossy links (external.loss_probability > 0) the XB always holds packets until
    /// acknowledged, whatever this says: only its copy can be resent.
    XbRelease release = XbRelease::kOnTransmit;
    XbTransmit transmit = XbTransmit::kParallel;
  } xb;

  [[nodiscard]] std::uint64_t total_tiles() const {
    return static_cast<std::uint64_t>(chips) * chip.tiles;
  }
  /// Grid position of a tile within its chip.
  [[nodiscard]] GridPosition position(std::uint32_t chip_tile) const;
  /// Manhattan distance between two tiles of one chip.
  [[nodiscard]] std::uint32_t hops(std::uint32_t chip_tile_a, std::uint32_t chip_tile_b) const;
  /// On-chip latency `base + per_hop * hops`: the cycles between sending a word and its arrival.
  [[nodiscard]] Cycles on_chip_latency(std::uint32_t chip_tile_a, std::uint32_t chip_tile_b) const;
  /// Cycles a tile's send port (and the receiver's port) is busy for `bytes` on chip.
  [[nodiscard]] Cycles on_chip_transfer_cycles(std::uint64_t bytes) const;
  /// XB occupancy at which XOFF is sent: low enough that the packets a tile can still emit
  /// before the XOFF reaches it fit in the queue (see sim/external/README section in sim/README).
  [[nodiscard]] std::uint32_t xoff_threshold() const;
  /// Packets that may still reach the XB after it sends XOFF (to all its granted tiles).
  [[nodiscard]] std::uint32_t packets_in_flight_after_xoff() const;
  /// Whether the XB holds each packet until its acknowledgement (see Xb::release).
  [[nodiscard]] bool xb_holds_until_ack() const {
    return xb.release == XbRelease::kOnAck || external.loss_probability > 0;
  }
  /// Barrier of a sync group with at most `tiles_on_a_chip` tiles on any one chip, over
  /// `chips` chips.
  [[nodiscard]] Cycles barrier_cycles(std::uint64_t tiles_on_a_chip, std::uint32_t chips) const;
};

/// The built-in default: one GC200 chip.
[[nodiscard]] Fabric default_fabric();
/// The model before calibration (one XB grant at a time, packets held until acknowledged, one
/// link per neighbour, 8-byte tile ports, constant barriers); `sim/fabric/fabrics/legacy.json`
/// is the same machine as a file.
[[nodiscard]] Fabric legacy_fabric();

/// Reads a fabric object: every field optional (defaults above), unknown or ill-typed fields
/// throw InputError naming the field, e.g. "f.json: field 'chip.tiles': expected a positive
/// integer, got \"abc\"". `source` names the file in messages.
[[nodiscard]] Fabric parse_fabric(const nlohmann::ordered_json& json, std::string_view source);
/// parse_fabric on a file. Throws IoError if it cannot be read, InputError if it is malformed.
[[nodiscard]] Fabric load_fabric(const std::filesystem::path& path);
/// Parses fabric JSON text (for fuzzing and tests).
[[nodiscard]] Fabric parse_fabric_text(std::string_view text, std::string_view source);
/// Every parameter, in the file format (round-trips through parse_fabric).
[[nodiscard]] nlohmann::ordered_json to_json(const Fabric& fabric);

/// A directed chip-to-chip link.
struct ExternalLink {
  std::uint32_t from_chip = 0;
  std::uint32_t to_chip = 0;
  /// "LF0" (forward out of chip 0), "LB1", or "L0-2" for full topologies; with
  /// external.links_per_chip, one of several parallel links: "LF0.3".
  std::string name;
};

/// The static routing table of the external interconnect: for every ordered chip
/// pair, the fixed list of links a packet follows.
class RoutingTable {
public:
  explicit RoutingTable(const Fabric& fabric);
  [[nodiscard]] const std::vector<ExternalLink>& links() const { return links_; }
  /// Link ids from `from_chip` to `to_chip` (empty when equal).
  [[nodiscard]] const std::vector<std::uint32_t>& route(std::uint32_t from_chip,
                                                        std::uint32_t to_chip) const {
    return routes_[static_cast<std::size_t>(from_chip) * chips_ + to_chip];
  }
  [[nodiscard]] std::uint32_t max_route_hops() const;
  /// The links joining the same two chips in the same direction as `link` (itself included, in
  /// id order): a packet routed over `link` may take any of them.
  [[nodiscard]] const std::vector<std::uint32_t>& parallel(std::uint32_t link) const {
    return groups_[group_of_[link]];
  }
  [[nodiscard]] nlohmann::ordered_json to_json() const;

private:
  std::uint32_t chips_;
  std::vector<ExternalLink> links_;
  std::vector<std::vector<std::uint32_t>> routes_;
  std::vector<std::uint32_t> group_of_;
  std::vector<std::vector<std::uint32_t>> groups_;
};

} // namespace s2p::sim
