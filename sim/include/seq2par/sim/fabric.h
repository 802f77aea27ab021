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

struct GridPosition {
  std::uint32_t column = 0;
  std::uint32_t row = 0;
};

struct Fabric {
  std::string name = "GC200-like (built-in default)";
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
    std::uint32_t send_bytes_per_cycle = 8;
    std::uint32_t latency_base_cycles = 6;
    std::uint32_t latency_cycles_per_hop = 1;
  } exchange;

  struct Sync {
    Cycles on_chip_cycles = 150;
    Cycles cross_chip_cycles = 1500;
  } sync;

  struct External {
    Topology topology = Topology::kRing;
    std::uint32_t bytes_per_cycle = 32;
    Cycles latency_cycles = 2000; ///< per link hop, one way
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
    std::uint32_t queue_packets = 64;
    /// One way, tile <-> XB, for XREQ/XON/XOFF and for data packets on their way to the XB.
    Cycles control_latency_cycles = 16;
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
  /// Packets that may still reach the XB after it sends XOFF.
  [[nodiscard]] std::uint32_t packets_in_flight_after_xoff() const;
};

/// The built-in default: one GC200-like chip.
[[nodiscard]] Fabric default_fabric();

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
  std::string name; ///< "LF0" (forward out of chip 0), "LB1", or "L0-2" for full topologies
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
  [[nodiscard]] nlohmann::ordered_json to_json() const;

private:
  std::uint32_t chips_;
  std::vector<ExternalLink> links_;
  std::vector<std::vector<std::uint32_t>> routes_;
};

} // namespace s2p::sim
