// A kernel as the front end hands it over: its memory (pools, tensors) and its schedule
// tree, one branch per stage of the sequential program. Nothing here knows about Clang.
#pragma once

#include "ir/expr.h"
#include "ir/source_location.h"

#include <seq2par/sim/schedule.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::ir {

enum class AccessMode { Read, Write, ReadWrite };

inline bool reads(AccessMode mode) {
  return mode != AccessMode::Write;
}
inline bool writes(AccessMode mode) {
  return mode != AccessMode::Read;
}
const char* to_string(AccessMode mode);

// The distribution protocols of s2p::resource_map, by the name of their factory.
enum class MapProtocol { Block, Cyclic, BlockBlock, BlockCyclic, SplitPoints };
const char* to_string(MapProtocol protocol);
std::optional<MapProtocol> parse_map_protocol(std::string_view name);

// The combine operations of the library's collectives (s2p::sum{}, ...).
enum class CombineOp { Sum, Product, Max, Min };
const char* to_string(CombineOp op); // as the schedule spells it: "sum", "prod", "max", "min"

// An element type as schedules name it (the simulator's vocabulary: f32, f64, i8 ... u64); none
// for a type schedules do not name (a struct, bool, long double).
using ScheduleElementType = std::optional<sim::ElementType>;
std::string to_string(const ScheduleElementType& type); // "f32", ...; "" for none

// A tunable constant (`constexpr int kDepth = S2P_TUNABLE(2, 1, 8);`) a kernel's pool uses.
struct Tunable {
  std::string name;
  std::int64_t value = 0;              // as compiled (a plan's, or as written)
  std::optional<std::int64_t> min, max; // the declaration's range, if it gives one
};

// On-tile buffer memory (`s2p::pool<T, N>`): the resource warps share.
struct Pool {
  std::string name;
  std::string element_type;
  std::int64_t units = 0; // elements
  SourceLocation loc;
  std::int64_t element_bytes = 0;
  // What the pool takes on its tile (the warp kernel's pool_bytes, a composed task's `pool`
  // buffer in its forall's schedule).
  std::int64_t bytes() const { return units * element_bytes; }
  // The tunable a tensor of the pool has as its slot count (`pool.tensor<kDepth, N>`): the
  // pool's ring depth, which a tuning plan may change. Nothing: the depth is not tunable.
  std::optional<Tunable> depth = std::nullopt;
};

enum class TensorKind {
  Pool, // `pool.tensor<Shape..., Size>(offset)`: data and a resource
  Ref,  // `s2p::tensor_ref<T>`: off-tile data, dependencies by sub-tensor index
};

struct Tensor {
  std::string name; // unique within the kernel (helper-local tensors get a suffix if needed)
  TensorKind kind = TensorKind::Pool;
  int pool = -1;                   // TensorKind::Pool: index into Kernel::pools
  Expr offset;                     // TensorKind::Pool: first pool element
  std::vector<std::int64_t> shape; // TensorKind::Pool: sub-tensor grid; Ref: unknown (empty)
  std::int64_t sub_size = 0;       // TensorKind::Pool: elements per sub-tensor
  std::string element_type;
  SourceLocation loc;
  // TensorKind::Ref over a tile view of a multi-tile task split into warps (At, Ct in
  // `forall(Ct.blocks(), ...)`): accessed whole (its blocks Ct(b), At({b[0], k})); only the
  // output's can be written, and it holds only the task's own block.
  bool tile_block = false;

  std::int64_t sub_tensor_count() const {
    std::int64_t n = 1;
    for (auto d : shape)
      n *= d;
    return n;
  }
};

// One sub-tensor argument of an intrinsic call: `t[i]`, `t(i, j)`, or the whole tensor.
struct Access {
  int tensor = -1;
  std::vector<Expr> coords; // empty with `whole`
  bool whole = false;
  AccessMode mode = AccessMode::Read;
  SourceLocation loc;
  int argument = -1; // which argument of the call it is
};

// A span of the call's source text to be replaced when the call is emitted: a loop
// variable or index scalar by its value, a helper parameter by its argument, a
// helper-local tensor by its kernel-level name.
struct TextHole {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::optional<Expr> value; // integer value (rendered after substitution)
  std::string replacement;   // verbatim replacement when `value` is empty
};

// What `--auto-warps` decided for a call site, and why (passes/assign_warps.h): the role
// the rule gives the call, its estimated cost, and the rule's words for the dumps.
enum class WarpRole { Load, Compute, Store };
const char* to_string(WarpRole role); // "load", "compute", "store"
struct WarpChoice {
  WarpRole role = WarpRole::Compute;
  bool annotated = false;  // the call's own `#pragma s2p warp(N)` decided; the rule did not
  std::int64_t cost = 0;   // estimated cycles of all its instances
  std::string rule;        // e.g. "load: reads tensor_ref 'in', writes pool tensor 'a'; ..."
};

struct CallSite {
  std::string callee;
  int warp = -1; // -1: no `#pragma s2p warp(N)` applies
  std::optional<WarpChoice> warp_choice; // set when --auto-warps ran on the kernel
  // With --auto-warps: mutable state outside the arguments the call reaches (one key per
  // variable); calls sharing a key must run on one warp.
  std::vector<std::string> shared_state;
  std::vector<Access> accesses;
  std::string text; // the call expression as written
  std::vector<TextHole> holes;
  std::string cost; // S2P_COST(...) expression text, empty for the default
  // For evaluating `cost`: the intrinsic's parameter declarations ("s2p::in<float> b")
  // and where each argument sits in `text` (offset, length).
  std::vector<std::string> parameters;
  std::vector<std::pair<std::size_t, std::size_t>> arguments;
  SourceLocation loc;
};

// The schedule tree: root = kernel; one branch per top-level stage.
struct ScheduleNode {
  enum class Kind { Kernel, Loop, Function, Block, Call, If };
  Kind kind = Kind::Block;
  SourceLocation loc;
  std::string name; // loop variable, function name, kernel name

  // Loop: for (name = init; step > 0 ? name < bound : name > bound; name += step)
  std::string var_type = "int"; // the induction variable's declared type
  IntType var_int_type{32, true, "int"}; // its arithmetic: every value the loop takes must fit
  Expr init;
  Expr bound;
  std::int64_t step = 1;

  CallSite call; // Call
  // If: children[0] is the branch taken when `condition` holds (a Block), children[1], if
  // present, the `else` branch.
  Condition condition;
  std::vector<ScheduleNode> children;
};

struct Kernel;

// One step of a multi-tile kernel (S2P_TILES(n)): a ring collective over per-tile rows, or
// a forall over agile fields planned by owner-copy.
struct TileStep {
  enum class Kind { AllReduce, ReduceScatter, AllGather, Forall };
  Kind kind = Kind::AllReduce;
  SourceLocation loc;
  std::string field;          // collectives: the rows expression (row t = tile t)
  std::string op;             // collectives: the combine object, e.g. "s2p::sum{}"
  std::optional<CombineOp> combine; // collectives: the library's combine, if it is one
  std::string rows_parameter; // collectives: the field parameter passed as the rows, if one
  ScheduleElementType element_type; // collectives: the rows' (an arithmetic type)
  std::string text;           // the statement as written

  // Forall (owner-copy): the agile field written (identity index), the agile fields read
  // with their index maps (in[d] = i[axis[d]] + offset[d]), and the body as a lambda over
  // (index, output view, input views...). In the local-global view (block by block)
  // the forall runs over the output's algorithmic blocks, `output` and `reads` name
  // s2p::tiles(...) variables and the maps take block coordinates to block coordinates.
  // In the local-global view a coordinate may also be a loop variable of the task body
  // (At({b[0], k})): axis[d] == kLoopAxis, and the task reads every block with that
  // coordinate in [offset[d], offset[d] + span[d]). `span` is empty when no axis is a loop's.
  // In the global view an index axis may carry a span too: a window of the index,
  // i[axis[d]] + offset[d] + [0, span[d]) (Xd[{i[0] + k}] over a body loop k, a convolution).
  static constexpr int kLoopAxis = -1;
  // span[d] of a loop axis that covers the field's whole axis d (a loop whose bounds are known
  // only when the kernel runs, a coordinate computed from the kernel's values).
  static constexpr std::int64_t kWholeAxis = -1;
  // One bound of the `if`s around a read (global view): i[axis] >= value, or i[axis] < value
  // when `upper`. `value` is C++ the kernel can evaluate where it launches the forall (a
  // constant, `n - 1`, `Ad.extent()[0] - 1`); `constant` its value when it is one.
  // A value of the kernel that a forall's launch fixes and its body cannot change (a `const`
  // local, a loop variable of a loop around steps that only its header changes): variable
  // `name` + offset. The access relations keep it as a symbol (a parameter), so that they can
  // prove lu's `Ad[{k, k}]` is not an element `if (i[0] > k)` lets the forall write.
  struct KernelSymbol {
    std::string name;     // the relations' parameter, one per variable of the kernel
    std::string variable; // the variable as the kernel names it where the forall launches
    std::int64_t offset = 0;
    friend bool operator==(const KernelSymbol&, const KernelSymbol&) = default;
  };
  struct IndexBound {
    int axis = 0;
    bool upper = false;
    std::string value;
    std::optional<std::int64_t> constant;
    std::optional<KernelSymbol> symbol{}; // `value` as a symbol, when it is one
    // `value` is another coordinate of the index plus a constant (`i[1] <= i[0]`, a triangle):
    // a bound the access relations read and the launch's guard box cannot hold (it skips it).
    struct IndexTerm {
      int axis = 0;
      std::int64_t offset = 0;
      friend bool operator==(const IndexTerm&, const IndexTerm&) = default;
    };
    std::optional<IndexTerm> against{};
    // i[axis] != value (floyd-warshall's `i[0] != k`), `upper` unused: no box holds it; the
    // relations split the access on either side of it.
    bool excluded = false;
    // With `excluded`, a value that is not a variable of a loop around steps (`i[0] != n - 1`,
    // a stencil's boundary written with `!=`): where the launch finds it at an edge of the
    // forall's index range it bounds the index as `i[0] < n - 1` (or `i[0] > 0`) would, and a
    // schedule template is planned only for a constant. Without it the launch skips the bound
    // (a loop variable's `!= k` is inside the range on most iterations, and one template
    // serves them all).
    bool bounds_at_edge = false;
    friend bool operator==(const IndexBound&, const IndexBound&) = default;
  };
  // A bound of a body loop's range that the launch knows: `value`, C++ the kernel evaluates
  // where it launches the forall (`7`, `(m) + 0`, `(Bd.extent()[0]) - 1`, `(first + count) + 0`),
  // and as the relations read it: a constant, a kernel value (`symbol`, plus its offset) or a
  // field's extent (`extent`); with none of them the relations leave the bound out.
  // Or a coordinate of the forall's index plus a constant (`index`: a triangle's `k < i[0]`),
  // plus, when `symbol`, `extent` or `value` is set, that value of the kernel (a window
  // `i[0] + k` over `k < taps`: i0 + taps): the relations read it, the launch plans the union
  // of the ranges its indices give (s2p::index_map::bounded_by_index).
  struct FieldExtent {
    std::string field; // the view or field parameter whose extent() it is
    int axis = 0;
    std::int64_t offset = 0;
    friend bool operator==(const FieldExtent&, const FieldExtent&) = default;
  };
  struct RangeBound {
    std::string value;
    std::optional<std::int64_t> constant{};
    std::optional<KernelSymbol> symbol{};
    std::optional<FieldExtent> extent{};
    std::optional<IndexBound::IndexTerm> index{};
    // With `index`: the kernel's value is subtracted from the coordinate, not added (a window
    // `i[0] - k` over `k < taps` starts at i0 - taps + 1).
    bool subtracted = false;
    friend bool operator==(const RangeBound&, const RangeBound&) = default;
  };
  // A loop coordinate over a body loop whose bounds are values of the kernel (trmm's
  // `for (k = row + 1; k < m; ++k)`): k in [lower, upper).
  struct KernelRange {
    RangeBound lower;
    RangeBound upper;
    friend bool operator==(const KernelRange&, const KernelRange&) = default;
  };
  struct IndexMap {
    std::vector<int> axis;
    std::vector<std::int64_t> offset;
    std::vector<std::int64_t> span{};
    // The read happens only at indices within these bounds (a stencil's boundary `if`); the
    // footprint is the image of the guarded indices. Empty: every index reads.
    std::vector<IndexBound> guard{};
    // symbol[d]: coordinate d is that kernel value (a whole-axis loop coordinate for the
    // stages that plan without it; the launch reads exactly that element). Empty: none is.
    std::vector<std::optional<KernelSymbol>> symbol{};
    // range[d]: coordinate d is a body loop's variable over a range the kernel's values bound
    // (a whole-axis loop coordinate for the stages that plan without them; the relations and
    // the launch read the range). Empty: none is.
    std::vector<std::optional<KernelRange>> range{};
    // scale[d]: index coordinate d is scale[d] * i[axis[d]] + offset[d] (a strided read,
    // `2 * i[0]`). Empty: every index coordinate has scale 1.
    std::vector<std::int64_t> scale{};
    // shift[d]: index coordinate d also adds (or subtracts) that kernel value (`Xd[{i[0] +
    // lag}]`, `Xd[{i[0] - lag}]`): the launch evaluates it, the relations read it as a
    // parameter, and no schedule template is planned (its value is the running kernel's).
    // Empty: none does.
    struct Shift {
      KernelSymbol value;
      bool subtracted = false;
      friend bool operator==(const Shift&, const Shift&) = default;
    };
    std::vector<std::optional<Shift>> shift{};
    friend bool operator==(const IndexMap&, const IndexMap&) = default;
    std::int64_t scale_of(std::size_t d) const { return d < scale.size() ? scale[d] : 1; }
    // The task's own index (i0, i1, ...): no permutation, offset, span or guard.
    bool is_own() const {
      if (!span.empty() || !guard.empty() || !symbol.empty() || !range.empty() || !scale.empty() ||
          !shift.empty())
        return false;
      for (std::size_t d = 0; d < axis.size(); ++d)
        if (axis[d] != static_cast<int>(d) || offset[d] != 0)
          return false;
      return true;
    }
    static IndexMap own(int rank) {
      IndexMap map{{}, std::vector<std::int64_t>(static_cast<std::size_t>(rank), 0)};
      for (int d = 0; d < rank; ++d)
        map.axis.push_back(d);
      return map;
    }
  };
  struct Read {
    std::string field;
    std::vector<IndexMap> maps;
    // A fused forall's further output (pass_manager/fuse_foralls.h): on the output's map, read
    // and written only at the task's own index, stored back with the output.
    bool written = false;
  };
  int rank = 0;
  bool local_global = false;
  std::vector<std::string> moved_at_start; // fields named by S2P_MOVE_MEMORY(out, in)
  std::string output;
  std::vector<Read> reads;
  std::string body; // "[&](s2p::index<2> i, auto& Cd, auto& Ad) { ... }"
  std::string body_head; // the lambda's head alone: "[&](s2p::index<2> i, auto& Cd, auto& Ad) "
  // S2P_SHARED kernel parameters the body reads (the body takes each tile's copy of them,
  // after the fields' views), in order of first use.
  std::vector<std::string> shared_reads;
  // A task body split into cooperative warps (it declares a pool or calls intrinsics): the
  // body as a warp-split kernel of its own, which every task runs on its tile.
  std::shared_ptr<const Kernel> task;
  // The split task's operations per warp image (calls, waits and signals of every region
  // and version; the k-th entry is the k-th warp in ascending warp number), set once its
  // warp plan is made: what its code estimate
  // counts (schedules/code_estimate.h). Empty for a body that is not split.
  std::vector<std::int64_t> warp_operations;

  // A global-view forall whose body writes several agile fields (on the output's map, each
  // only at the task's own index; the further ones are reads with `written`): its top-level
  // statements, which --plan's splits (pass_manager/split_foralls.h, loop fission) deal into
  // consecutive foralls. Empty for a body that writes one field.
  struct Statement {
    SourceLocation loc;
    std::string text;                     // as written, with its ';'
    std::vector<std::string> writes;      // agile fields it writes, in order of first write
    std::vector<Read> reads;              // agile fields it reads and does not write
    std::vector<std::string> shared_reads; // S2P_SHARED parameters it reads
    std::vector<std::string> declares;    // locals of the body it declares
    std::vector<std::string> uses;        // locals of the body it reads that it does not declare
    bool returns = false;                 // it may return, skipping the later statements
  };
  std::vector<Statement> statements;
  std::string index_parameter; // the forall's index as written ("s2p::index<1> i")
  // Whether the body may read its output (at its own index: `Yd[i] = Yd[i] * 0.5f`, `+=`, a
  // block task's output block, an inout of a composed task). False only where the front end
  // proved every access to the output is a plain assignment: a stolen task then needs none of
  // the output's current values (the runtime's work stealing).
  bool output_read = true;
  // The `if`s around each write of the output (global view), one entry per write: where all
  // of an entry's bounds hold, that write may happen. Empty: the body may write any element of
  // the output (a write outside every `if`, or one the front end did not bound).
  std::vector<std::vector<IndexBound>> output_write_guards;
  // A body that is one `if` without `else` whose condition is exactly a box on the index
  // (`if (i[0] >= 1 && i[0] < n - 1 && ...)`, every conjunct a bound of one coordinate against a
  // kernel value): the box, and the statement under the `if` as a block. Where the forall runs
  // in place the index runs over the box and this block runs without the test (it vectorizes as
  // the plain loop does). Both hold only for `guarded_body`: a pass that rewrites the body
  // (fusion, a split, a warp split) leaves the box unused.
  std::vector<IndexBound> iteration_box;
  std::string unguarded_statements;
  std::string guarded_body;

  // Records that the body reads `field` through `map` (each map once per field).
  void add_read(const std::string& field, const IndexMap& map);
  // The body as a lambda over (index, output view, one view per field read), from the
  // forall's index parameter and body as written.
  void set_body(const std::string& index_parameter, const std::string& statements);
};

// How the library spells a step's call: "all_reduce", "reduce_scatter", "all_gather", "forall".
const char* library_name(TileStep::Kind kind);

// A kernel value as the kernel names it ("row+1", "m"); a range bound the same way, its
// constant ("7") or its value as written.
std::string to_string(const TileStep::KernelSymbol& symbol);
std::string to_string(const TileStep::RangeBound& bound);
// The kernel's value an index bound adds to its coordinate (i0 + taps: taps), or subtracts from
// it when the bound is `subtracted` (i0 - taps + 1: taps), if it has one.
std::optional<TileStep::RangeBound> launch_part(const TileStep::RangeBound& bound);

// A resource map as the kernel builds it, when everything but its parent extent is a
// constant: enough to plan a forall at transpile time once the extents are known.
struct MapSpec {
  MapProtocol protocol = MapProtocol::Block;
  std::string parent_parameter;      // parent = this field parameter's extent(), or
  std::vector<std::int64_t> parent;  // ... this constant extent
  std::vector<std::int64_t> segment; // block_block, block_cyclic
  std::vector<std::vector<std::int64_t>> splits; // split_points, per axis
  int tiles = 0;
  bool columns = false; // s2p::axis::columns
  // .weights(...), .memory_blocks(...), .algorithmic_blocks(...), .exclude_tiles(...)
  struct Refinement {
    enum class Method { Weights, MemoryBlocks, AlgorithmicBlocks, ExcludeTiles };
    Method method = Method::Weights;
    std::vector<double> weights;
    std::vector<std::int64_t> extent;
    std::vector<int> tiles = {}; // ExcludeTiles
  };
  std::vector<Refinement> refinements; // in call order
};

// An agile field (or its tile view) as a forall names it: the kernel parameter whose data it
// distributes, the resource map it is distributed by, and its element type.
struct DistributedField {
  std::string parameter;
  std::string map;
  ScheduleElementType element_type;
};

struct MultiTile {
  int tiles = 0;
  std::vector<TileStep> steps;
  // Counted loops of the kernel body around steps (time loops, the outer loop of a solver):
  // the loop runs steps [first, first + count) in order each iteration, every launch planned
  // by the step's one schedule template (nothing is unrolled). Nested loops nest their ranges;
  // the list is in source order (an enclosing loop before the loops inside it).
  struct StepLoop {
    SourceLocation loc;
    std::string header; // "for (int t = 0; t < steps; ++t)", as written
    std::size_t first = 0;
    std::size_t count = 0;
  };
  std::vector<StepLoop> loops;
  // The loops around step k, outermost first.
  std::vector<const StepLoop*> loops_around(std::size_t k) const {
    std::vector<const StepLoop*> around;
    for (const StepLoop& loop : loops)
      if (k >= loop.first && k < loop.first + loop.count)
        around.push_back(&loop);
    return around;
  }
  // Steps [first, first + count) became `replacement` steps (a fusion, a split): the loops
  // keep enclosing what they enclosed. The replaced steps must share their loops.
  void replace_steps(std::size_t first, std::size_t count, std::size_t replacement) {
    for (StepLoop& loop : loops) {
      if (loop.first > first)
        loop.first = loop.first + replacement - count;
      else if (first < loop.first + loop.count)
        loop.count = loop.count + replacement - count;
    }
  }
  // S2P_SHARED parameters, in declaration order: read-only structures the foralls read,
  // held on master tiles and multicast before the foralls that read them.
  struct Shared {
    std::string name;
    SourceLocation loc;
    ScheduleElementType element_type;
  };
  std::vector<Shared> shared;

  // What a forall's schedule template needs (the template is written beside the
  // code). Maps appear only if all their sizes are constants.
  std::map<std::string, MapSpec> maps;                 // resource-map variable -> how built
  std::map<std::string, DistributedField> distributed; // agile / tile-view variable -> field
  // The extents of the kernel's field parameters, when every call of the kernel in its
  // translation unit passes fields of the same constant extents; `extents_from` says where
  // (or, when empty, `no_extents_reason` says why they are not known).
  std::map<std::string, std::vector<std::int64_t>> parameter_extents;
  std::string extents_from;
  std::string no_extents_reason;
};

// S2P_VARIANTS(f, g, ...): interchangeable intrinsics of one signature, the first as the
// kernel calls it; --plan may substitute another in the kernel's calls
// (pass_manager/substitute_variants.h). Each member with what a call of it needs: its cost
// expression (S2P_COST, empty: the default) and its parameter declarations (the names the
// cost expression uses).
struct VariantGroup {
  SourceLocation loc;
  struct Member {
    std::string name;
    std::string cost;
    std::vector<std::string> parameters;
  };
  std::vector<Member> members;
};

struct Kernel {
  std::string name;
  std::optional<MultiTile> multi_tile; // set for S2P_TILES (multi-tile) kernels
  std::vector<VariantGroup> variants;  // the input file's S2P_VARIANTS, in order
  SourceLocation loc;
  std::vector<Pool> pools;
  std::vector<Tensor> tensors;
  // Integer kernel parameters and top-level scalars whose value is only known at run time.
  std::vector<std::string> symbols;
  // Kernel-scope declarations re-emitted before the launch, in source order.
  std::vector<std::string> preamble;
  // Names the generated body must still mention so that -Wunused-* stays quiet: inlined
  // internal-linkage helpers (no longer called) and index scalars (now folded into
  // values). Pairs of (expression, why).
  std::vector<std::pair<std::string, std::string>> kept_references;
  ScheduleNode root;
};

} // namespace s2p::ir
