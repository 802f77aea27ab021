// <seq2par/planning/tile_memory.h> — the tile memory allocator of multi-tile kernels.
//
// Every variable a tile holds (owned and received blocks, exchange send/receive buffers, pools,
// copies of shared structures, an estimate of each warp image's code) gets one contiguous
// address range in that tile's SRAM, fixed at compile time (no run-time allocation exists).
//
//  * Liveness over the superstep program gives each variable a live range; variables whose live
//    ranges overlap *interfere*: they never overlap in memory and, when the fabric separates
//    banks, never touch the same bank.
//  * Variables that interfere with exactly the same others form an *equivalence class*; the
//    liveness analysis gives the classes and a class-interference table, so interference is
//    decided once per pair of classes, not per pair of variables.
//  * Equal-address sets (pointees of a shared structure: one variable per receiving tile that
//    must sit at the same address on each) are placed first, each as one variable carrying the
//    union of its members' interferences on all their tiles. A set that cannot be placed is
//    split by receiving tiles (the structure becomes several smaller shared structures) and
//    retried.
//  * Then each tile places its remaining variables one by one, each at the lowest address that
//    is free of every placed interfering variable (and of their banks), in the order of a
//    heuristic: the class sort (classes by total bytes, descending; within a class by size,
//    then alignment), by size, or by power-of-two size class then live span; by default all
//    three, keeping the layout that ends lowest on each tile. The order changes only packing:
//    any order gives a valid layout or an out-of-memory verdict.
//  * Out of memory is a value naming the tile, its peak live set and its biggest variables.
//
// Plain C++ (no Clang, no simulator): the runtime's schedule writers and seq2par both call it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace s2p::rt {

// What a variable holds: only for reports and ordering ties, never for correctness.
enum class variable_kind {
  owned_block,
  received_block,
  send_buffer,
  receive_buffer,
  pool,
  shared_copy,
  code
};
const char* to_string(variable_kind kind);

// Supersteps [first, last], both inclusive (the superstep program's expanded indices).
struct live_range {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  bool overlaps(const live_range& other) const {
    return first <= other.last && other.first <= last;
  }
  friend bool operator==(const live_range&, const live_range&) = default;
};

// --- Liveness over the superstep program --------------------------------------------------

enum class access_kind { read, write };

// One access of a variable in a superstep of the program.
struct superstep_access {
  std::size_t variable = 0;
  std::uint32_t superstep = 0;
  access_kind kind = access_kind::read;
};

// A variable is live from the superstep that writes it to the last superstep that reads it.
// Read before any write: an input, live from superstep 0. Written and never read afterwards:
// live only where written (it still needs its bytes there). Never accessed: live nowhere
// (std::nullopt). `live_out` variables (results the host reads after the kernel) stay live to
// the last superstep, `supersteps - 1`.
std::vector<std::optional<live_range>> live_ranges(std::size_t variables,
                                                   std::span<const superstep_access> accesses,
                                                   std::uint32_t supersteps,
                                                   std::span<const std::size_t> live_out = {});

// The liveness of one tile's variables, in the form the allocator uses.
//  * segments: supersteps cut where the live set changes; within a segment every live variable
//    interferes with every other. `segment_of[v]` = [first, last] segment indices of variable v.
//  * classes: variables with the same segments have the same interference (each other and
//    everything live in any of those segments), so they form one class.
//  * interferes(a, b): the class-interference table (classes sharing a segment), a bit matrix.
struct tile_liveness {
  struct segment_span {
    std::uint32_t first = 0;
    std::uint32_t last = 0;
  };
  struct variable_class {
    segment_span segments;
    std::vector<std::size_t> members; // indices into the tile's variable list
    std::uint64_t total_bytes = 0;
  };
  std::vector<std::uint32_t> segment_start; // first superstep of each segment, ascending
  std::vector<segment_span> segment_of;     // per variable of the tile
  std::vector<std::size_t> class_of;        // per variable of the tile
  std::vector<variable_class> classes;
  std::vector<std::uint64_t> table; // classes x words_per_row bits
  std::size_t words_per_row = 0;

  bool interferes(std::size_t class_a, std::size_t class_b) const {
    return (table[class_a * words_per_row + class_b / 64] >> (class_b % 64)) & 1U;
  }
};

// `ranges` and `bytes` per variable of one tile (bytes only for the classes' totals).
tile_liveness analyse_tile(std::span<const live_range> ranges,
                           std::span<const std::uint64_t> bytes);

// --- Equal-address sets ----------------------------------------------------------------------

// A variable of the problem, named by its index in memory_problem::variables.
using variable_id = std::size_t;

// Variables (on different tiles) that must sit at one address on every tile.
// `structure`: the shared structure whose pointers need it (for the split records).
struct equal_address_set {
  std::vector<variable_id> members;
  std::string structure;
};

// How a pointer of a shared structure reaches data (the pointer formats of shared structures).
//  vector_1d: the pointer addresses one contiguous block: that block is constrained.
//  vector_2d: the pointer addresses a block of pointers: the pointer block is constrained (the
//             pointers in it are values, which may differ per tile).
//  vector_list: an offsets block plus a base pointer (address = base + offset): both the
//             offsets block and the base pointer's target are constrained.
enum class pointer_format { vector_1d, vector_2d, vector_list };
const char* to_string(pointer_format format);

// One pointer of a shared structure, with what it reaches on each receiving tile.
// `target[i]`: the block (1-D data block, 2-D pointer block, or vector list's offsets block) on
// receiver i; `base_target[i]`: the vector list's base target on receiver i (vector_list only).
struct shared_pointer {
  std::string name;
  pointer_format format = pointer_format::vector_1d;
  std::vector<variable_id> target;
  std::vector<variable_id> base_target;
};

// A read-only structure that receivers use through its pointers.
struct shared_structure {
  std::string name;
  std::vector<shared_pointer> pointers;
};

// The equal-address sets a shared structure's pointers need: one per pointer, two per vector
// list (offsets block and base target). Pointers must be valid on every receiver, so whatever
// they reach must have one address on all of them.
std::vector<equal_address_set> equal_address_sets_of(const shared_structure& structure);

struct tile_variable; // below

// Why a group of equal-address sets is refused: sets that share a member are one constraint, so
// their members all get one address; two different variables of one tile in that union would
// need the same address (an unsatisfiable equal-address group).
struct equal_address_refusal {
  std::uint32_t tile = 0;
  variable_id first = 0;
  variable_id second = 0;
  std::vector<std::size_t> sets; // the sets tied together
  std::string message;
};

// The sets merged where they share members (a member's constraints are transitive), or the
// first refusal. `variables` gives each member's tile and name.
struct equal_address_verdict {
  std::vector<equal_address_set> merged;
  std::optional<equal_address_refusal> refusal;
  bool legal() const { return !refusal.has_value(); }
};
equal_address_verdict check_equal_address_sets(std::span<const equal_address_set> sets,
                                               std::span<const tile_variable> variables);

// --- The allocation problem and its result ----------------------------------------------------

struct tile_variable {
  std::string name;
  std::uint32_t tile = 0;
  std::uint64_t bytes = 0;
  std::uint64_t alignment = 8; // a power of two
  variable_kind kind = variable_kind::owned_block;
  live_range live;
};

// The part of the fabric the allocator needs (sim::Fabric's tile fields).
struct memory_params {
  std::uint64_t sram_bytes = 0;
  std::uint64_t bank_bytes = 0;
  bool separate_banks = false; // interfering variables never share a bank
};

struct memory_problem {
  memory_params params;
  std::uint32_t tiles = 0;
  std::vector<tile_variable> variables;
  std::vector<equal_address_set> equal_address;
};

// Placement order of one tile's unconstrained variables.
// Placement order of one tile's unconstrained variables; each goes to the lowest free address
// (first fit) in that order.
enum class placement_order {
  classes_by_bytes, // classes by total bytes, then variables by size, alignment, descending
  by_size,          // variables by bytes, then live span, descending
  by_size_class,    // by power-of-two size class, then live span, then bytes, descending
  best_of,          // each of the three above from the same start: the lowest layout per tile
  given,            // allocation_options::order (tests: any order must be valid)
};

struct allocation_options {
  placement_order order = placement_order::best_of;
  // For `given`: variable ids in placement order (a tile's variables are taken in the order
  // they appear here; variables missing from it are placed after, in id order).
  std::vector<variable_id> given_order;
};

// A tile that could not hold its variables: where its live bytes peak and what is biggest there.
struct tile_out_of_memory {
  std::uint32_t tile = 0;
  std::uint64_t peak_live_bytes = 0;
  std::uint32_t peak_superstep = 0;
  std::vector<variable_id> peak_live_set; // biggest first
  std::vector<variable_id> biggest;       // the tile's biggest variables, up to three
  std::vector<variable_id> unplaced;      // the variables that found no room
  std::string message;
};

// An equal-address set that found no common address, split by receiving tiles and retried: its
// structure is sent as one smaller structure per part.
struct set_split {
  std::string structure;
  std::vector<std::vector<variable_id>> parts;
};

struct tile_usage {
  std::uint64_t end = 0;             // highest address used + 1
  std::uint64_t peak_live_bytes = 0; // the liveness lower bound of `end`
};

struct memory_layout {
  std::vector<std::optional<std::uint64_t>> address; // per variable; none when unplaced
  std::vector<tile_usage> usage;                     // per tile
  std::vector<tile_out_of_memory> out_of_memory;     // tiles that did not fit, ascending
  std::vector<set_split> splits;
  std::optional<equal_address_refusal> refusal; // the sets were refused: nothing placed
  bool ok() const { return out_of_memory.empty() && !refusal; }
};

memory_layout allocate(const memory_problem& problem, const allocation_options& options = {});

// "12.5 KiB" (tenths of a KiB, rounded), "96 bytes" below 1 KiB: how verdicts write a size.
std::string memory_size_text(std::uint64_t bytes);

// Every rule of a layout, checked from scratch (tests, and a guard for callers): each placed
// variable inside SRAM and aligned, interfering variables neither overlapping nor (with
// separate banks) sharing a bank, equal-address members at one address; unplaced variables only
// on tiles with an out-of-memory verdict. Returns what is wrong, empty when valid.
std::vector<std::string> layout_errors(const memory_problem& problem, const memory_layout& layout);

} // namespace s2p::rt
