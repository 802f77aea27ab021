// What a simulation measured, and its JSON form (`seq2par.sim-report/1`, sim/README.md
// "Report"). The report holds only simulated quantities - no host times, paths of temporary
// files or addresses - so the same inputs and seed give a byte-identical report.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/fabric.h"
#include "seq2par/sim/schedule.h"

namespace s2p::sim {

inline constexpr std::string_view kReportFormat = "seq2par.sim-report/1";

struct SuperstepStats {
  std::uint32_t index = 0;
  std::string name;
  std::string group;
  BarrierVariant barrier = BarrierVariant::kA;
  Cycles start = 0;           ///< earliest tile of the group to start it
  Cycles compute_cycles = 0;  ///< until the last tile of the group finished computing
  Cycles sync_cycles = 0;     ///< barrier costs paid in this superstep
  Cycles exchange_cycles = 0; ///< first exchange start to last exchange end
  Cycles end = 0;             ///< when the last tile of the group left it
  std::uint64_t transfers = 0;
  std::uint64_t external_transfers = 0;
  std::uint64_t bytes = 0;
};

struct TileStats {
  Cycles compute_cycles = 0;
  Cycles exchange_cycles = 0;  ///< in exchange phases, until its own last transfer ended
  Cycles send_port_cycles = 0; ///< on-chip and external emission
  Cycles receive_port_cycles = 0;
  Cycles end = 0; ///< when it finished its last superstep
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t peak_memory = 0;
  std::uint32_t peak_superstep = 0;
  /// Live bytes of each MemoryCategory at the peak, and the peak of each category on its own.
  std::array<std::uint64_t, kMemoryCategories> memory_at_peak{};
  std::array<std::uint64_t, kMemoryCategories> peak_by_category{};
};

/// A tile's live bytes over time: (superstep, bytes live from it until the next entry's
/// superstep), an entry where the live set's size changes (the report's memory map over time).
/// Kept apart from TileStats, which ranks exchange as plain bytes.
using MemoryOverTime = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

struct LinkStats {
  std::string name;
  std::uint32_t from_chip = 0;
  std::uint32_t to_chip = 0;
  std::uint64_t packets = 0; ///< transmissions, resends included
  std::uint64_t bytes = 0;   ///< headers included
  std::uint64_t lost = 0;
  Cycles busy_cycles = 0;
};

struct XbStats {
  std::uint32_t chip = 0;
  std::uint64_t xreq = 0;
  std::uint64_t xon = 0;
  std::uint64_t xoff_flow_control = 0; ///< sent because the queue was filling
  std::uint64_t xoff_end_of_grant = 0; ///< sent after a tile's last packet (end of its grant)
  std::uint32_t max_occupancy = 0;     ///< packets, never above Fabric::xb.queue_packets
  std::uint64_t packets = 0;
  std::uint64_t resent = 0;
  std::uint64_t duplicates_dropped = 0;
  Cycles grant_cycles = 0; ///< time with a tile holding XON
};

/// Comparison of a collective with the ring bound.
struct RingBound {
  std::string formula = "2*(N-1)/N*S/B + 2*(N-1)*L";
  std::uint64_t n = 0;     ///< tiles in the ring
  std::uint64_t s = 0;     ///< bytes per tile
  double b = 0;            ///< bytes per cycle of a tile's link
  double l = 0;            ///< per-step latency: slowest ring hop + barrier
  double hop_latency = 0;  ///< slowest ring hop alone
  double barrier = 0;      ///< barrier cost per step
  std::uint64_t steps = 0; ///< 2(N-1) for allreduce, N-1 otherwise
  double bandwidth_term = 0;
  double latency_term = 0;
  double bound_cycles = 0;
  double ratio = 0;           ///< total_cycles / bound_cycles
  double bandwidth_ratio = 0; ///< total_cycles / bandwidth_term
};

/// One level of a hierarchical collective's bound: a ring bound whose B and L are the level's.
/// Across chips, B is what the chip's exchange block delivers (packets with headers, one tile
/// granted at a time, the acknowledgement window), so `window` says which limit applied.
struct LevelBound {
  LevelScope scope = LevelScope::kWithinChip;
  RingBound ring;
  std::uint64_t packets_per_step = 0; ///< across chips: the busiest chip's packets in one step
  bool window_limited = false;        ///< across chips: the XB's queue, not emission, set the pace
};

/// The bound of a hierarchical collective: the sum of its levels' bounds.
struct HierarchicalBound {
  std::vector<LevelBound> levels;
  double bound_cycles = 0;
  double ratio = 0; ///< total_cycles / bound_cycles
};

struct VerifyResult {
  bool ok = false;
  std::uint64_t checked_elements = 0;
  std::uint64_t mismatches = 0;
  std::string detail; ///< the first mismatch, or what was checked
};

struct DeadlockInfo {
  std::uint32_t superstep = 0;
  std::string superstep_name;
  /// "tile 4 waits in entry 'rs.recv' for 712 bytes from tile 3, which sends nothing to it"
  std::vector<std::string> blocked;
  std::uint64_t blocked_count = 0;
};

struct RunReport {
  std::string schedule_source;
  std::string kernel;
  std::uint32_t tiles = 0;
  std::uint32_t chips = 0;
  std::uint32_t tiles_per_chip = 0;
  std::uint64_t supersteps_planned = 0;
  /// Tiles that took part in each superstep, summed (host statistics only: not in the JSON).
  std::uint64_t superstep_tile_steps = 0;
  std::string fabric_source; ///< a path, or "built-in default"
  Fabric fabric;
  std::uint64_t seed = 0;
  std::uint64_t init_seed = 0;
  std::string data_mode;    ///< "moved" or "timing-only"
  std::string init_pattern; ///< how "input" buffers were filled

  bool completed = false; ///< false after a deadlock or an internal error
  Cycles total_cycles = 0;
  std::vector<SuperstepStats> supersteps;
  std::vector<TileStats> tiles_stats;
  std::vector<MemoryOverTime> tiles_memory_over_time; ///< per tile, as tiles_stats
  std::vector<LinkStats> links;
  std::vector<XbStats> xbs;
  nlohmann::ordered_json routing;
  std::optional<RingBound> ring_bound;               ///< flat ring collectives
  std::optional<HierarchicalBound> hierarchical_bound; ///< hierarchical collectives
  std::optional<DeadlockInfo> deadlock;
  std::optional<VerifyResult> verify;
  std::optional<std::string> memory_digest;
};

/// The report as JSON, diagnostics included (the first `max_diagnostics` in full, then counts).
[[nodiscard]] nlohmann::ordered_json to_json(const RunReport& report,
                                             const Diagnostics& diagnostics,
                                             std::size_t max_diagnostics = 1000);

/// Ring bound for a schedule carrying ring collective metadata; nullopt otherwise.
[[nodiscard]] std::optional<RingBound> ring_bound(const Schedule& schedule, const Fabric& fabric,
                                                  Cycles total_cycles);
/// Per-level bound for a schedule carrying hierarchical collective metadata; nullopt otherwise.
[[nodiscard]] std::optional<HierarchicalBound>
hierarchical_bound(const Schedule& schedule, const Fabric& fabric, Cycles total_cycles);

/// Where a span of supersteps spent its cycles: the sums of the report's per-superstep
/// `sync_cycles`, `exchange_cycles` and `compute_cycles`.
struct PhaseCycles {
  std::uint64_t sync = 0;
  std::uint64_t exchange = 0;
  std::uint64_t compute = 0;
  [[nodiscard]] std::uint64_t total() const { return sync + exchange + compute; }
};

/// A run of alike supersteps, folded into one row of the HTML report's timeline.
///
/// Two supersteps are alike when their names agree once every run of digits is replaced by
/// `#` ("reduce-scatter step 12" -> "reduce-scatter step #") and they have the same sync group
/// and barrier variant. A group is a block of `period` consecutive supersteps (1 to
/// kMaxGroupPeriod) repeated `repeats` times in a row, each repetition alike the block step by
/// step; from each position the block covering the most supersteps is taken (the shortest on
/// a tie). A ring's reduce-scatter steps are one group, its all-gather steps another; a
/// program alternating "compute {i}" and "exchange {i}" is one group of period 2.
struct SuperstepGroup {
  std::vector<std::string> patterns; ///< the block's names with digits as `#`, one per period
  std::string first_name;            ///< name of the group's first superstep
  std::string last_name;             ///< name of its last
  std::size_t first = 0;             ///< index of its first superstep in the report's list
  std::size_t period = 1;            ///< supersteps in the repeated block
  std::size_t repeats = 1;           ///< times the block repeats
  std::uint64_t start = 0;           ///< earliest start of its supersteps
  std::uint64_t end = 0;             ///< latest end
  std::uint64_t shortest = 0;        ///< shortest superstep (end - start)
  std::uint64_t longest = 0;         ///< longest superstep
  PhaseCycles cycles;                ///< summed over its supersteps
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;
  [[nodiscard]] std::size_t count() const { return period * repeats; }
};

inline constexpr std::size_t kMaxGroupPeriod = 8;

/// A superstep name with every run of digits replaced by `#`.
[[nodiscard]] std::string superstep_pattern(std::string_view name);

/// The report's `supersteps` array folded into groups (rule at SuperstepGroup), in order;
/// every superstep is in exactly one group. Throws InputError naming the field
/// (`supersteps[3].end`) when a superstep lacks one.
[[nodiscard]] std::vector<SuperstepGroup> group_supersteps(const nlohmann::ordered_json& supersteps,
                                                           std::string_view source);

/// The report (its JSON form) as one self-contained HTML page with inline CSS and SVG: summary,
/// the run's sync / exchange / compute split, the timeline as groups of supersteps (each
/// opening to its supersteps), per-tile busy map on each chip's grid, per-tile memory by
/// category, links. Throws InputError naming the field if `report` is not a complete report.
[[nodiscard]] std::string html_report(const nlohmann::ordered_json& report,
                                      std::string_view source);

} // namespace s2p::sim
