// The schedule format `seq2par.schedule/1`: one BSP template for all tiles.
//
// The file is the contract between seq2par and the simulator/runtime. Its JSON Schema is
// sim/schedule/schema/seq2par.schedule-1.schema.json and sim/README.md documents it with an
// example. This header is the in-memory form: every per-tile field is an Expr of the tile index,
// resolved per tile by resolve.h ("patching" the index into the one image).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "seq2par/sim/diagnostics.h"
#include "seq2par/sim/expr.h"

namespace s2p::sim {

inline constexpr std::string_view kScheduleFormat = "seq2par.schedule/1";

enum class ElementType : std::uint8_t { kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64, kF32, kF64 };
enum class CombineOp : std::uint8_t { kCopy, kSum, kMax, kMin, kProd };
/// Where a superstep's barrier sits: (a) compute->exchange, (b) exchange->compute, (c) both.
enum class BarrierVariant : std::uint8_t { kA, kB, kC };
enum class BufferInit : std::uint8_t {
  kInput, ///< filled with deterministic input data at load (see sim/README.md, "Initial data")
  kZero,  ///< zeros at load
  kNone,  ///< not produced until something writes it; sending it earlier is an error
};
/// What a buffer holds, for the memory report: a field's own data, exchange staging buffers,
/// copies of shared structures, code (no contents), blocks received from another tile's owned
/// data (live only while the compute reads them), and the pools of a task body split into warps
/// (a composed task: live during the compute that runs it; the warp pipeline's own storage, so
/// no contents here either). Appended in this order: reports index their per-category arrays by
/// it.
enum class MemoryCategory : std::uint8_t { kData, kExchange, kShared, kCode, kReceived, kPool };
inline constexpr std::size_t kMemoryCategories = 6;
/// Whether the simulator keeps a buffer of this category's bytes (what exchanges and codelets
/// move and read): code and pools only take room in the layout.
[[nodiscard]] constexpr bool holds_contents(MemoryCategory category) {
  return category != MemoryCategory::kCode && category != MemoryCategory::kPool;
}
/// How a generated collective moves data: one flat ring over every tile, or rings per level
/// (within each chip, then across chips; sim/README.md "Hierarchical collectives").
enum class CollectiveAlgorithm : std::uint8_t { kRing, kHierarchical };
/// Where a collective's fragments lie after its reduce-scatter (and so before its all-gather):
/// as the flat ring leaves them, fragment k on tile (k + owner_offset) mod N, or as the
/// hierarchical reduce-scatter leaves them (`fragment_owner` in collectives.h). A one-way
/// hierarchical all-gather may take the flat ring's placement (it only copies, so it then gives
/// exactly the flat ring's rows), and so may a one-way hierarchical reduce-scatter (each
/// fragment then ends complete on the tile the flat ring completes it on).
enum class FragmentPlacement : std::uint8_t { kRing, kHierarchical };
/// The tiles one level of a hierarchical collective runs a ring over.
enum class LevelScope : std::uint8_t {
  kWithinChip,  ///< the tiles of one chip (every chip at once)
  kAcrossChips, ///< the tiles with the same index on every chip (every index at once)
};

/// Whether an on-chip send's timing is fixed by the schedule (compiled, time-deterministic
/// exchange: a conflict is an error) or decided at run time (contention delays it; see
/// sim/README.md, "On-chip exchange").
enum class SendTiming : std::uint8_t { kFixed, kDynamic };

[[nodiscard]] std::string_view to_string(ElementType type);
[[nodiscard]] std::string_view to_string(SendTiming timing);
[[nodiscard]] std::string_view to_string(CombineOp op);
[[nodiscard]] std::string_view to_string(BarrierVariant barrier);
[[nodiscard]] std::string_view to_string(BufferInit init);
[[nodiscard]] std::string_view to_string(MemoryCategory category);
[[nodiscard]] std::string_view to_string(CollectiveAlgorithm algorithm);
[[nodiscard]] std::string_view to_string(LevelScope scope);
[[nodiscard]] std::string_view to_string(FragmentPlacement placement);
[[nodiscard]] std::optional<FragmentPlacement>
fragment_placement_from_string(std::string_view name);
[[nodiscard]] std::optional<CollectiveAlgorithm>
collective_algorithm_from_string(std::string_view name);
[[nodiscard]] std::optional<LevelScope> level_scope_from_string(std::string_view name);
[[nodiscard]] std::optional<ElementType> element_type_from_string(std::string_view name);
[[nodiscard]] std::optional<CombineOp> combine_op_from_string(std::string_view name);
[[nodiscard]] std::size_t element_size(ElementType type);
[[nodiscard]] bool is_floating(ElementType type);

/// Symbols every expression may use. `tile`, `chip` and `chip_tile` are per tile; the others
/// are the same on all tiles.
struct BuiltinSlots {
  static constexpr int kTile = 0;         ///< the tile index (the index store every tile holds)
  static constexpr int kChip = 1;         ///< the chip index
  static constexpr int kChipTile = 2;     ///< tile index within its chip
  static constexpr int kTiles = 3;        ///< tiles in the schedule
  static constexpr int kChips = 4;        ///< chips in the schedule
  static constexpr int kTilesPerChip = 5; ///< tiles per chip in the schedule
  static constexpr int kCount = 6;
};

/// Which tiles execute something: all tiles of the sync group, a strided range, an explicit
/// list, or those for which `where` is non-zero.
struct TileSet {
  enum class Kind : std::uint8_t { kAll, kRange, kList, kWhere };
  Kind kind = Kind::kAll;
  Expr first;
  Expr count;
  Expr stride = Expr::constant(1);
  std::vector<Expr> list;
  Expr where;
};

/// `let` bindings of an entry: evaluated per tile, in order, before the entry's fields.
struct Let {
  int slot = 0;
  Expr value;
};

struct BufferDecl {
  std::string name;
  ElementType type = ElementType::kU8;
  Expr bytes;               ///< may depend on the tile
  std::optional<Expr> base; ///< per-tile base address; absent = laid out by the simulator
  TileSet tiles;            ///< which tiles hold it (kAll = every tile)
  BufferInit init = BufferInit::kNone;
  MemoryCategory category = MemoryCategory::kData;
  std::optional<Expr> live_first; ///< first superstep (expanded index) it is live in
  std::optional<Expr> live_last;  ///< last superstep it is live in
};

/// A byte range of a buffer, on the tile executing the entry.
struct Region {
  int buffer = -1;
  Expr offset;
  Expr bytes;
};

struct ComputeEntry {
  std::string name;
  std::string codelet; ///< what the runtime's compute callback is registered under
  TileSet tiles;
  std::vector<Let> lets;
  Expr cycles;
  std::uint32_t warps = 1;
  std::vector<Region> reads;
  std::vector<Region> writes; ///< what it produces (may be sent in the following exchange)
  std::string field;          ///< JSON path, for messages
};

/// The sending half of a transfer, executed by each tile of `tiles` (the sender's index chooses
/// source, destinations and send cycle). Several destinations = multicast.
struct SendEntry {
  std::string name;
  TileSet tiles;
  std::vector<Let> lets;
  Region source;
  std::vector<Expr> to;
  Expr cycle; ///< send cycle within the exchange phase (on-chip; external sends wait for XON)
  std::string tag;
  std::string field;
  int tag_id = 0; ///< index of `tag` in Schedule::tags (matching compares ids)
  /// kDynamic: `cycle` is the earliest start; ports and load may delay it (on-chip only).
  SendTiming timing = SendTiming::kFixed;
};

/// The receiving half, executed by each tile of `tiles` (the receiver's index chooses where the
/// data lands and which local data it is combined with).
struct RecvEntry {
  std::string name;
  TileSet tiles;
  std::vector<Let> lets;
  Expr from;
  Region destination;
  CombineOp op = CombineOp::kCopy;
  std::optional<ElementType> type; ///< defaults to the destination buffer's type
  std::string tag;
  std::string field;
  int tag_id = 0;
};

/// Piece of a superstep name: literal text, or the value of a loop variable / parameter ({s}).
struct NamePart {
  std::string literal;
  int slot = -1;
};

struct SuperstepTemplate {
  std::string name; ///< as written, may contain {var} for loop variables
  std::vector<NamePart> name_parts;
  int group = -1; ///< index into Schedule::groups; -1 = all tiles
  BarrierVariant barrier = BarrierVariant::kA;
  std::vector<ComputeEntry> compute;
  std::vector<SendEntry> sends;
  std::vector<RecvEntry> receives;
  std::string field;
};

/// The program: supersteps and `repeat` loops around them.
struct ProgramItem {
  int superstep = -1; ///< index into Schedule::supersteps, or -1 for a repeat
  int loop_slot = -1;
  std::string loop_name;
  Expr count;
  std::vector<ProgramItem> body;
  std::string field;
};

struct SyncGroup {
  std::string name;
  TileSet tiles;
};

/// Optional metadata of a generated collective: lets reports compare with the ring bound and
/// lets `run --verify` check the result.
/// One level of a hierarchical collective: a ring over `tiles` tiles in each of its scope's sets.
struct CollectiveLevel {
  LevelScope scope = LevelScope::kWithinChip;
  std::uint32_t tiles = 0;
};

struct CollectiveInfo {
  std::string kind; ///< "allreduce", "reduce-scatter", "all-gather"
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  /// Hierarchical only: within-chip, then across-chips (the order of a reduce-scatter).
  std::vector<CollectiveLevel> levels;
  bool bidirectional = false;
  CombineOp op = CombineOp::kSum;
  ElementType type = ElementType::kF32;
  std::string buffer;
  std::uint64_t bytes = 0;        ///< per tile
  /// Ring: fragment k is complete on tile (k + owner_offset) mod N after the reduce-scatter.
  /// Hierarchical: always -1, placement as fragment_owner (collectives.h) says.
  std::int64_t owner_offset = -1;
  /// nullopt: the algorithm's own (placement_of in collectives.h); a one-way hierarchical
  /// all-gather or reduce-scatter may be given the flat ring's.
  std::optional<FragmentPlacement> placement;
};

struct Schedule {
  std::string source; ///< file name (or "<memory>") for messages
  std::string kernel;
  std::string generator;
  std::uint32_t tiles = 0;
  std::uint32_t chips = 1;
  std::uint32_t tiles_per_chip = 0;
  /// fabric.tile_sram_bytes: tile memory the schedule was made for, when the default's is too
  /// small for it (a default fabric for the schedule gets at least this much).
  std::optional<std::uint64_t> tile_sram_bytes;

  SymbolTable symbols;
  /// Parameter values by slot; builtins filled in. The environment every evaluation starts from.
  std::vector<std::int64_t> base_env;
  std::vector<std::pair<std::string, std::int64_t>> params; ///< for reports, in file order

  std::vector<SyncGroup> groups;
  std::vector<BufferDecl> buffers;
  std::vector<SuperstepTemplate> supersteps;
  std::vector<ProgramItem> program;
  std::optional<CollectiveInfo> collective;
  std::vector<std::string> tags{""}; ///< every distinct transfer tag; "" is id 0

  [[nodiscard]] int find_buffer(std::string_view name) const;
  [[nodiscard]] std::uint32_t chip_of(TileId tile) const { return tile / tiles_per_chip; }
  [[nodiscard]] std::uint32_t chip_tile_of(TileId tile) const { return tile % tiles_per_chip; }
};

/// Limits that keep hostile or mistaken input from exhausting time or memory.
struct ScheduleLimits {
  std::uint64_t max_tiles = 1u << 20;
  std::uint64_t max_expanded_supersteps = 1u << 20;
  std::size_t max_repeat_depth = 8;
};

/// Reads a schedule object. Throws InputError naming the field (and column, for expressions),
/// e.g. "s.json: field 'supersteps[2].exchange[0].offset': column 7: unknown name 'tlie'".
[[nodiscard]] Schedule parse_schedule(const nlohmann::ordered_json& json, std::string_view source,
                                      const ScheduleLimits& limits = {});
[[nodiscard]] Schedule parse_schedule_text(std::string_view text, std::string_view source,
                                           const ScheduleLimits& limits = {});
/// Throws IoError if the file cannot be read, InputError if it is malformed.
[[nodiscard]] Schedule load_schedule(const std::filesystem::path& path,
                                     const ScheduleLimits& limits = {});

/// One superstep of the expanded program: a template plus the values of the loop variables.
struct ExpandedSuperstep {
  int superstep = 0;
  std::string name;                                      ///< with {var} substituted
  std::vector<std::pair<int, std::int64_t>> loop_values; ///< slot, value
};

/// Unrolls `repeat` loops. Throws InputError when a count is negative, not constant across tiles,
/// or the program grows past limits.max_expanded_supersteps.
[[nodiscard]] std::vector<ExpandedSuperstep> expand_program(const Schedule& schedule,
                                                            const ScheduleLimits& limits = {});

} // namespace s2p::sim
