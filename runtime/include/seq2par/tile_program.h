// <seq2par/tile_program.h> — what generated multi-tile code runs: `forall` over agile
// fields with owner-copy as one image for every tile.
//
// Each tile holds, per field, the memory blocks it owns and the ones moved to it, packed
// in a tile-local buffer; a tile_view maps a global index to that buffer. The plan
// (<seq2par/owner_copy.h>) gives the moves; the program is
//   load owned blocks -> exchange (the moves) -> compute the tile's output blocks -> store
// and the library runs it on the fabric simulator (buffers in simulated tile memory, the
// moves as exchange entries, compute as a codelet) or on one host thread per tile.
// C++17, like the rest of what generated code includes.
#pragma once

#include <seq2par/distribution.h>
#include <seq2par/owner_copy.h>
#include <seq2par/work_stealing.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace s2p::rt {

struct tile_kernel_info;

// --- the type-erased program the library runs --------------------------------------------

// A field's memory on one tile. The blocks the tile owns come first, at `data`; the blocks the
// exchange brings in (owner-copy's received copies, a thief's output copies) are a layout
// variable of their own where a backend keeps them apart (the simulator's `<field>__received`
// buffer, with its own address and live range): `received` then points at them. Null: they
// follow the owned blocks in one buffer (threads, mpi).
// The fields with no default are those every initializer must give (an aggregate; the
// compiler's -Wmissing-field-initializers checks them).
struct tile_bytes { // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::byte* data;
  std::size_t size;
  std::byte* received = nullptr;
};
using tile_memory = std::function<tile_bytes(int field)>;

struct tile_field {
  std::string name;
  std::string element_type; // "f32", "f64", ...
  std::vector<std::int64_t> bytes_per_tile; // 0 on tiles that do not hold it
  std::vector<std::int64_t> extent; // the whole field's, for the schedule's description
  // A copy of a shared read-only structure (S2P_SHARED): its moves are the master's multicast.
  bool shared = false;
  // Of bytes_per_tile, what owner-copy (and work stealing) brings in: copies of blocks other
  // tiles own, live only until the compute has read them. Empty: nothing is received.
  std::vector<std::int64_t> received_bytes_per_tile = {};
  // A fused forall's further output (`writes`): stored back like the output (field 0), so a
  // backend that keeps tiles apart (mpi) gathers it like the output.
  bool written = false;
};

// What the launch did with one shared read-only structure of its kernel.
struct tile_shared_note {
  std::string name;
  std::int64_t bytes = 0;
  bool shared = false; // else replicated
  int master = -1;
  bool read_here = false; // this launch's compute reads it
  std::string reason;
};

struct tile_move {
  int field;
  int from_tile;
  int to_tile;
  std::int64_t from_offset; // bytes, in the field's tile buffers
  std::int64_t to_offset;
  std::int64_t bytes;
};

// A pool of a task body split into warps (task_pool in <seq2par/runtime.h>): a layout variable
// of its own (category `pool`) on every tile that runs tasks, live during the compute.
struct tile_task_pool {
  std::string name;
  std::int64_t element_bytes = 0;
  std::int64_t bytes = 0;
};

// The code of a forall's task body (code_image in <seq2par/runtime.h>): a layout variable of
// its own (category `code`) on every tile that runs tasks, live for the whole launch.
struct tile_code_image {
  std::string name;
  std::int64_t bytes = 0;
};

struct tile_program {
  std::vector<tile_field> fields;
  std::vector<tile_move> moves;   // before the tasks: owner-copy, then work-stealing fetches
  std::vector<tile_move> returns; // after the tasks: stolen output blocks back to their owners
  std::function<void(int tile, const tile_memory&)> load;            // owned blocks in
  std::function<std::int64_t(int tile, const tile_memory&)> compute; // returns cycles
  std::function<void(int tile, const tile_memory&)> store;           // owned output blocks out
  std::int64_t planned_bytes = 0;
  std::int64_t minimum_bytes = -1; // -1: not computed (field too large to scan)
  bool work_stealing = false;      // planned with stealing on
  std::int64_t stolen_tasks = 0;   // their results go home as `returns` (one move per run)
  std::int64_t stealing_bytes = 0; // fetches and returns work stealing added
  // Per tile, the compute model's cycles for its tasks without owner lookups (known only
  // while the body runs): what a schedule says the forall costs before it has run.
  std::vector<std::int64_t> compute_estimate;
  // The kernel's shared read-only structures as this launch holds them, and the kernel-level
  // plan's peak live bytes per tile with them shared as decided and all replicated.
  std::vector<tile_shared_note> shared;
  std::int64_t shared_peak_bytes = 0;
  std::int64_t replicated_peak_bytes = 0;
  // Per tile, the tasks it runs (work stealing's included); and, when the task body is split
  // into warps, the pools one task declares (a tile runs its tasks one after another: one set
  // of pools at a time).
  std::vector<std::int64_t> tasks_per_tile;
  std::vector<tile_task_pool> task_pools;
  // The task body's code images (seq2par's estimate), on the same tiles, for the whole launch.
  std::vector<tile_code_image> code_images;
};

void run_tile_program(const tile_kernel_info& info, const tile_program& program);

// The launch's task pools (tile_kernel_info::task_pools) as the program holds them.
std::vector<tile_task_pool> task_pools_of(const tile_kernel_info& info);
// The launch's code images (tile_kernel_info::code_images) as the program holds them.
std::vector<tile_code_image> code_images_of(const tile_kernel_info& info);

// Whether foralls steal work: S2P_WORK_STEALING=1 (steals that shorten the forall under the
// cost model) or =greedy (the original stealing protocol: whenever an idle tile would finish the task
// first, transfers not counted); and the costs the decisions use: the fabric's exchange
// rate, chips and barrier, and the compute model.
enum class work_stealing_mode { off, cost_model, greedy };
work_stealing_mode work_stealing_setting();
inline bool work_stealing_enabled() {
  return work_stealing_setting() != work_stealing_mode::off;
}
steal_costs work_stealing_costs(const tile_kernel_info& info);

// --- layouts and views ----------------------------------------------------------------------

// Which memory blocks of a field each tile holds (owned, and received by owner-copy), and
// where in its buffer (in elements).
template <int N> class block_layout {
public:
  block_layout(const resource_map<N>& map, int tiles)
      : parent_(map.parent()), block_(map.memory_block()),
        counts_(resource_map<N>::block_counts(map.parent(), map.memory_block())),
        offsets_(static_cast<std::size_t>(tiles)), owned_(static_cast<std::size_t>(tiles)),
        elements_(static_cast<std::size_t>(tiles), 0) {
    // Every memory block inside a segment belongs to the segment's tile.
    for (const auto& segment : map.segments()) {
      index<N> first;
      extent<N> counts;
      for (int d = 0; d < N; ++d) {
        first[d] = segment.child.offset[d] / block_[d];
        counts[d] = (segment.child.offset[d] + segment.child.size[d] + block_[d] - 1) / block_[d] -
                    first[d];
      }
      for (std::int64_t k = 0; k < counts.size(); ++k) {
        const index<N> b = first + delinearize(k, counts);
        add(segment.tile, b);
        owned_[static_cast<std::size_t>(segment.tile)].push_back(b);
      }
    }
    owned_elements_ = elements_; // what `add` appends from here on is received
  }

  // Adds memory block `b` (block coordinates) to `tile`, once.
  void add(int tile, const index<N>& b) {
    const std::int64_t id = linearize(b, counts_);
    auto& table = offsets_[static_cast<std::size_t>(tile)];
    if (table.count(id)) // NOLINT(readability-container-contains): C++17 header (generated code)
      return;
    table[id] = elements_[static_cast<std::size_t>(tile)];
    elements_[static_cast<std::size_t>(tile)] += block_grid(b).total_extent();
  }
  std::int64_t offset(int tile, const index<N>& b) const {
    return offsets_[static_cast<std::size_t>(tile)].at(linearize(b, counts_));
  }
  grid<N> block_grid(const index<N>& b) const {
    return resource_map<N>::block_grid(parent_, block_, b);
  }
  const extent<N>& block() const { return block_; }
  const extent<N>& counts() const { return counts_; }
  const extent<N>& parent() const { return parent_; }
  std::int64_t elements(int tile) const { return elements_[static_cast<std::size_t>(tile)]; }
  // The owned blocks' elements: offsets below it are owned, the others received copies.
  std::int64_t owned_elements(int tile) const {
    return owned_elements_[static_cast<std::size_t>(tile)];
  }
  const std::vector<index<N>>& owned(int tile) const {
    return owned_[static_cast<std::size_t>(tile)];
  }
  const std::unordered_map<std::int64_t, std::int64_t>& table(int tile) const {
    return offsets_[static_cast<std::size_t>(tile)];
  }

private:
  extent<N> parent_, block_, counts_;
  std::vector<std::unordered_map<std::int64_t, std::int64_t>> offsets_;
  std::vector<std::vector<index<N>>> owned_;
  std::vector<std::int64_t> elements_;
  std::vector<std::int64_t> owned_elements_;
};

// Where the block at element offset `offset` of a tile's layout lives: among the owned blocks
// at `base`, or among the received copies at `received` (see tile_bytes).
template <class T> struct tile_regions {
  T* base;
  T* received;
  std::int64_t owned;
  T* at(std::int64_t offset) const {
    return offset < owned ? base + offset : received + (offset - owned);
  }
};
template <int N, class T>
tile_regions<T> regions_of(const tile_bytes& bytes, const block_layout<N>& layout, int tile) {
  T* base = reinterpret_cast<T*>(bytes.data);
  const std::int64_t owned = layout.owned_elements(tile);
  return {base, bytes.received ? reinterpret_cast<T*>(bytes.received) : base + owned, owned};
}

// --- the plan, without data ----------------------------------------------------------------

// A field a forall touches, as the plan sees it: no data, only its map and element type.
template <int N> struct forall_field_spec {
  std::string name;
  std::string element_type; // "f32", "f64", ...
  std::int64_t element_bytes = 8;
  const resource_map<N>* map = nullptr;
  std::vector<index_map<N>> maps; // inputs: the index maps it is read through
  access_view view = access_view::global;
};

// What a forall does on each tile, decided from the maps alone: the owner-copy moves (plus
// work stealing's fetches and returns), each field's tile buffers, and the tasks each tile
// runs. The runtime binds the fields' data to it; seq2par plans the same thing at transpile
// time to write the schedule template, so both come from this one function.
template <int N> struct forall_layout {
  tile_program program; // fields, moves, returns and byte counts; no load/compute/store
  std::vector<block_layout<N>> layouts; // the output's, then each input's
  std::vector<std::vector<forall_task>> runs;  // per tile, the tasks it runs
};

// `stealing`: the costs work stealing decides with, or nothing to run every task at home.
// `with_minimum`: also count the minimum bytes by visiting every output element (only done
// up to 2^22 elements).
// Each read of each field, as owner-copy plans them (and an in-place forall checks them).
template <int N>
std::vector<input_access<N>> accesses_of(const std::vector<forall_field_spec<N>>& inputs) {
  std::vector<input_access<N>> accesses;
  for (const auto& input : inputs)
    for (const auto& m : input.maps)
      accesses.push_back({input.name, input.map, m, input.element_bytes, input.view});
  return accesses;
}

// The stolen tasks' results: in before the tasks (the body may read its output's current
// values) when the costs say so, home after them.
template <int N>
void add_steal_returns(tile_program& program, const block_layout<N>& output,
                       const steal_result& steals, std::int64_t element_bytes,
                       const steal_costs& stealing) {
  for (const auto& back : steals.returns) {
    const index<N> mb = owner_copy_detail::to_index<N>(back.memory_block);
    for (const auto& run : back.runs) {
      const std::int64_t thief = (output.offset(back.from_tile, mb) + run.offset) * element_bytes;
      const std::int64_t owner = (output.offset(back.to_tile, mb) + run.offset) * element_bytes;
      const std::int64_t bytes = run.elements * element_bytes;
      if (stealing.fetch_output) {
        program.moves.push_back({0, back.to_tile, back.from_tile, owner, thief, bytes});
        program.stealing_bytes += bytes;
      }
      program.returns.push_back({0, back.from_tile, back.to_tile, thief, owner, bytes});
      program.stealing_bytes += bytes;
    }
  }
  program.stolen_tasks = steals.stolen;
  for (const auto& move : steals.extra_moves)
    program.stealing_bytes += move.bytes;
}

// The compute model (run_global / run_local_global): a cycle per element per field in the
// global view; per element of every block accessed in the local-global view.
template <int N>
void add_compute_estimate(tile_program& program, const std::vector<std::vector<forall_task>>& runs,
                          const forall_field_spec<N>& out,
                          const std::vector<forall_field_spec<N>>& inputs) {
  std::int64_t accesses_per_task = 0;
  bool local_global = out.view == access_view::local_global;
  for (const auto& input : inputs) {
    accesses_per_task += static_cast<std::int64_t>(input.maps.size());
    local_global = local_global || input.view == access_view::local_global;
  }
  const std::int64_t per_element =
      local_global ? 1 + accesses_per_task : static_cast<std::int64_t>(1 + inputs.size());
  const resource_map<N>& out_map = *out.map;
  for (const auto& tasks : runs) {
    program.tasks_per_tile.push_back(static_cast<std::int64_t>(tasks.size()));
    std::int64_t cycles = 0;
    for (const forall_task& task : tasks)
      cycles += resource_map<N>::block_grid(out_map.parent(), out_map.algorithmic_block(),
                                            owner_copy_detail::to_index<N>(task.block))
                    .total_extent() *
                per_element;
    program.compute_estimate.push_back(cycles);
  }
}

template <int N>
forall_layout<N> plan_forall(int tiles, const forall_field_spec<N>& out,
                             const std::vector<forall_field_spec<N>>& inputs,
                             const std::optional<steal_costs>& stealing, bool with_minimum) {
  const resource_map<N>& out_map = *out.map;
  const std::vector<input_access<N>> accesses = accesses_of(inputs);
  const owner_copy_plan plan = plan_owner_copy<N>(out_map, accesses);
  if (!plan.error.empty())
    throw std::invalid_argument("seq2par: " + plan.error);
  forall_layout<N> result;
  result.layouts.emplace_back(out_map, tiles);
  for (const auto& input : inputs)
    result.layouts.emplace_back(*input.map, tiles);
  auto field_of = [&](const std::string& name) {
    std::size_t f = 0;
    while (f < inputs.size() && inputs[f].name != name)
      ++f;
    return f + 1;
  };
  auto spec_of = [&](std::size_t f) -> const forall_field_spec<N>& {
    return f == 0 ? out : inputs[f - 1];
  };
  tile_program& program = result.program;
  program.work_stealing = stealing.has_value();
  steal_result steals;
  if (stealing)
    steals = plan_work_stealing<N>(plan, out_map, accesses, out.element_bytes, *stealing);
  else
    steals.runs = plan.queues;
  std::vector<block_move> moves = plan.moves;
  moves.insert(moves.end(), steals.extra_moves.begin(), steals.extra_moves.end());
  const auto block_of = owner_copy_detail::to_index<N>;
  std::vector<std::vector<std::int64_t>> owned(result.layouts.size()); // elements, per tile
  for (std::size_t f = 0; f < result.layouts.size(); ++f)
    for (int t = 0; t < tiles; ++t)
      owned[f].push_back(result.layouts[f].elements(t));
  for (const auto& move : moves)
    result.layouts[field_of(move.field)].add(move.to_tile, block_of(move.block));
  for (const auto& back : steals.returns) // the thief computes into its own copy
    result.layouts[0].add(back.from_tile, block_of(back.memory_block));

  for (std::size_t f = 0; f < result.layouts.size(); ++f) {
    const forall_field_spec<N>& spec = spec_of(f);
    tile_field field{spec.name, spec.element_type, {}, {}};
    for (int t = 0; t < tiles; ++t) {
      const std::int64_t elements = result.layouts[f].elements(t);
      field.bytes_per_tile.push_back(elements * spec.element_bytes);
      field.received_bytes_per_tile.push_back((elements - owned[f][static_cast<std::size_t>(t)]) *
                                              spec.element_bytes);
    }
    for (int d = 0; d < N; ++d)
      field.extent.push_back(spec.map->parent()[d]);
    program.fields.push_back(std::move(field));
  }
  for (const auto& move : moves) {
    const std::size_t f = field_of(move.field);
    const std::int64_t size = spec_of(f).element_bytes;
    const index<N> b = block_of(move.block);
    program.moves.push_back({static_cast<int>(f), move.from_tile, move.to_tile,
                             result.layouts[f].offset(move.from_tile, b) * size,
                             result.layouts[f].offset(move.to_tile, b) * size, move.bytes});
  }
  if (stealing)
    add_steal_returns<N>(program, result.layouts[0], steals, out.element_bytes, *stealing);
  add_compute_estimate<N>(program, steals.runs, out, inputs);
  program.planned_bytes = plan.bytes;
  if (with_minimum && out_map.parent().size() <= (std::int64_t{1} << 22))
    program.minimum_bytes = minimum_block_bytes<N>(out_map, accesses);
  result.runs = std::move(steals.runs);
  return result;
}

} // namespace s2p::rt

namespace s2p::detail {
// The warp launches a multi-tile task body makes (a task split into cooperative warps) on
// this thread. The sim backend adds each launch's simulated makespan: the tile's compute
// phase then costs what its warp pipelines took, not the element-count model. Null outside
// a tile's tasks.
struct warp_cycles_sink {
  std::int64_t cycles = 0;
  std::int64_t launches = 0;
};
inline thread_local warp_cycles_sink* current_warp_cycles = nullptr;
} // namespace s2p::detail

namespace s2p::rt {

// Collects the warp launches of one tile's tasks, for as long as it lives (RAII).
class task_warp_cycles {
public:
  task_warp_cycles() : previous_(detail::current_warp_cycles) {
    detail::current_warp_cycles = &sink_;
  }
  ~task_warp_cycles() { detail::current_warp_cycles = previous_; }
  task_warp_cycles(const task_warp_cycles&) = delete;
  task_warp_cycles& operator=(const task_warp_cycles&) = delete;
  bool launched() const { return sink_.launches > 0; }
  std::int64_t cycles() const { return sink_.cycles; }

private:
  detail::warp_cycles_sink sink_;
  detail::warp_cycles_sink* previous_;
};

// The compute model's cost of one owner lookup (finding which local block holds an index:
// a hash probe). Explicit, like the fabric's other cost parameters; elements cost a cycle.
inline constexpr std::int64_t owner_lookup_cycles = 16;

// The full global view of one field on a tile: global index -> its local copy. Like seed
// 002 section 2.6 it keeps the current memory block and only looks the owner up again when
// an index leaves it. Only blocks the plan put on the tile are there; anything else is a
// planning bug and throws.
template <int N, class T> class tile_view {
public:
  tile_view(tile_regions<T> memory, const block_layout<N>& layout, int tile)
      : memory_(memory), layout_(&layout), table_(&layout.table(tile)) {}

  T& operator[](const index<N>& i) const {
    if (!current_.size.contains(i - current_.offset))
      find(i);
    return current_base_[current_field_.offset_of(i - current_.offset)];
  }
  // The whole field's extent, as the sequential build's agile field has it (a body's loop
  // bounds: `k < Ad.extent()[1]`).
  s2p::extent<N> extent() const { return layout_->parent(); }
  std::int64_t lookups() const { return lookups_; }
  // The output's view of a forall that reads its output at other indices: the elements its
  // tile does not own come from `reads`, the tile's copies of them (which no iteration of the
  // forall writes, as seq2par proved). `reads` must outlive this view.
  void read_also(const tile_view& reads) { also_ = &reads; }

private:
  // The block holding `i` in this view's memory, if the tile has it.
  bool locate(const index<N>& i) const {
    index<N> b;
    for (int d = 0; d < N; ++d)
      b[d] = i[d] / layout_->block()[d];
    const auto found = layout_->parent().contains(i) ? table_->find(linearize(b, layout_->counts()))
                                                     : table_->end();
    if (found == table_->end())
      return false;
    current_ = layout_->block_grid(b);
    current_base_ = memory_.at(found->second);
    current_field_ = field<N, T>(current_base_, current_.size);
    return true;
  }
  void find(const index<N>& i) const {
    ++lookups_;
    if (locate(i))
      return;
    if (!also_ || !also_->locate(i))
      throw std::logic_error("s2p runtime: a forall read an element its tile was not given "
                             "(owner-copy plan incomplete)");
    current_ = also_->current_;
    current_base_ = also_->current_base_;
    current_field_ = also_->current_field_;
  }

  tile_regions<T> memory_;
  const block_layout<N>* layout_;
  const std::unordered_map<std::int64_t, std::int64_t>* table_;
  const tile_view* also_ = nullptr;
  mutable grid<N> current_{}; // empty until the first lookup
  mutable T* current_base_ = nullptr;
  mutable field<N, T> current_field_;
  mutable std::int64_t lookups_ = 0;
};

// The local-global view on a tile (block by block): Xt(b) is algorithmic block b of X
// as a field over the tile's local copy. The owner lookup happens once per tile access;
// element accesses inside are plain strided indexing. Input blocks come back read-only.
// An atomic count that copies by value (views holding one stay copyable).
struct relaxed_counter : std::atomic<std::int64_t> {
  relaxed_counter() : std::atomic<std::int64_t>(0) {}
  relaxed_counter(const relaxed_counter& other)
      : std::atomic<std::int64_t>(other.load(std::memory_order_relaxed)) {}
};

template <int N, class T> class tile_blocks_view {
public:
  tile_blocks_view(tile_regions<T> memory, const block_layout<N>& layout, int tile,
                   extent<N> algorithmic)
      : memory_(memory), layout_(&layout), table_(&layout.table(tile)), algorithmic_(algorithmic) {}

  field<N, T> operator()(const index<N>& block) const {
    lookups_.fetch_add(1, std::memory_order_relaxed);
    const grid<N> g = resource_map<N>::block_grid(layout_->parent(), algorithmic_, block);
    index<N> b;
    for (int d = 0; d < N; ++d)
      b[d] = g.offset[d] / layout_->block()[d];
    const bool valid = blocks().contains(block);
    const auto found = valid ? table_->find(linearize(b, layout_->counts())) : table_->end();
    if (found == table_->end())
      throw std::logic_error(valid ? "s2p runtime: a forall used a block its tile was not given "
                                     "(owner-copy plan incomplete)"
                                   : "s2p: a tile access names a block outside the field");
    elements_.fetch_add(g.total_extent(), std::memory_order_relaxed);
    const grid<N> memory = layout_->block_grid(b);
    return field<N, T>(memory_.at(found->second), memory.size)
        .section(grid<N>{g.size, g.offset - memory.offset});
  }
  s2p::extent<N> blocks() const {
    return resource_map<N>::block_counts(layout_->parent(), algorithmic_);
  }
  std::int64_t lookups() const { return lookups_.load(std::memory_order_relaxed); }
  std::int64_t elements() const { return elements_.load(std::memory_order_relaxed); }

private:
  tile_regions<T> memory_;
  const block_layout<N>* layout_;
  const std::unordered_map<std::int64_t, std::int64_t>* table_;
  extent<N> algorithmic_;
  // Counted for the compute model. A task body split into warps reads blocks from several
  // threads at once, so the counts are atomic (relaxed: only their totals are read, after
  // the warps joined).
  mutable relaxed_counter lookups_;
  mutable relaxed_counter elements_;
};

// --- shared read-only structures (S2P_SHARED) ------------------------------------------------

// Defined in <seq2par/runtime.h>, which includes this header at its end; declared here for the
// files that include this one alone.
template <class T>
constexpr const char* element_type_name(); // NOLINT(readability-redundant-declaration)

// One S2P_SHARED kernel parameter: its bytes, the kernel's compute phases (its foralls, in
// program order) that read it, and how to copy its elements (row-major) into a tile's buffer.
struct shared_structure_entry {
  std::string name;
  std::string element_type;
  std::int64_t bytes = 0;
  std::vector<std::uint32_t> phases;
  std::function<void(std::byte*)> copy_in;
};

// The kernel-level plan: which structures sit on a master tile and are multicast before the
// phases that read them, which are replicated on every tile (<seq2par/planning/
// shared_structures.h> decides, by the chip's peak live memory). Made once per kernel call by
// the generated code; S2P_SHARED_STRUCTURES=replicate replicates every structure (the
// comparison `scripts/bench memory` makes).
class shared_structures {
public:
  struct decision {
    bool shared = false;
    int master = -1;
    std::string reason;
  };
  shared_structures(const tile_kernel_info& info, std::uint32_t phases,
                    std::vector<shared_structure_entry> entries);
  const std::vector<shared_structure_entry>& entries() const { return entries_; }
  const decision& decided(std::size_t k) const { return decisions_[k]; }
  int tiles() const { return tiles_; }
  std::int64_t peak_bytes() const { return peak_bytes_; }
  std::int64_t replicated_peak_bytes() const { return replicated_peak_bytes_; }

private:
  int tiles_;
  std::vector<shared_structure_entry> entries_;
  std::vector<decision> decisions_;
  std::int64_t peak_bytes_ = 0, replicated_peak_bytes_ = 0;
};

template <int N, class T>
shared_structure_entry shared_param(const field<N, T>& f, const char* name,
                                        std::vector<std::uint32_t> phases) {
  using element = std::remove_const_t<T>;
  const field<N, const T> source(f);
  return {name, element_type_name<element>(),
          static_cast<std::int64_t>(f.size()) * static_cast<std::int64_t>(sizeof(element)),
          std::move(phases), [source](std::byte* tile) {
            element* out = reinterpret_cast<element*>(tile);
            for (std::int64_t k = 0; k < source.size(); ++k)
              out[k] = source[delinearize(k, source.extent())];
          }};
}

// A shared structure a forall body reads: the kernel's field (its type and extent) and which
// of the kernel's structures it is.
template <int N, class T> struct shared_view {
  field<N, T> host;
  std::size_t structure;
};
template <int N, class T> shared_view<N, T> shared_read(const field<N, T>& f, std::size_t k) {
  return {f, k};
}

// The shared structures one forall (compute phase `phase` of its kernel) reads, in the order
// its body takes them after the fields' views. Empty for foralls of kernels without any.
template <class... Views> struct shared_reads {
  const shared_structures* kernel = nullptr;
  std::uint32_t phase = 0;
  std::tuple<Views...> views;
};
template <class... Views>
shared_reads<Views...> shared_phase(const shared_structures& kernel, std::uint32_t phase,
                                    Views... views) {
  return {&kernel, phase, std::tuple<Views...>(std::move(views)...)};
}

// Adds the kernel's shared structures to a launch's program as fields `first`, `first + 1`,
// ...: on its master (or every tile, replicated) for the whole kernel, and on every other tile
// while this phase reads it, multicast from the master in the exchange before the compute.
void add_shared_structures(tile_program& program, const shared_structures& kernel,
                           std::uint32_t phase, int first_field);

template <class... Views>
void add_shared(tile_program& program, const shared_reads<Views...>& shared, int first_field) {
  if (shared.kernel)
    add_shared_structures(program, *shared.kernel, shared.phase, first_field);
}

// The tile's copy of a shared structure, as a field of the kernel's extent.
template <int N, class T>
field<N, T> shared_copy(const shared_view<N, T>& view, const tile_memory& memory, int first) {
  return field<N, T>(reinterpret_cast<T*>(memory(first + static_cast<int>(view.structure)).data),
                     view.host.extent());
}

} // namespace s2p::rt
