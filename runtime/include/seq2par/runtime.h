// <seq2par/runtime.h> — what seq2par's generated code calls. Generated kernels keep their
// signature; their body declares the pools and tensors, then launches one function per
// cooperative warp. Warps synchronize on numbered channels:
//
//   w.wait(ch, phase, site)  blocks until channel `ch` has been signalled `phase` times
//                            (phase <= 0 never blocks; a channel counts signals monotonically,
//                            so a wait can never consume a signal meant for someone else)
//   w.signal(ch)             one more signal on `ch`
//   w.step(site, cycles)     the warp finished CDFG node `site`, which cost `cycles`
//                            (virtual time on the simulator; progress for the watchdog);
//                            the site's declared accesses (site_access) happen here: after
//                            the waits before it, before the signals after it
//
// The backend is chosen at run time with S2P_BACKEND (see backend_name()).
// This header is C++17 so generated code builds wherever the sequential input does.
#pragma once

#include <seq2par/seq2par.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace s2p::rt {

// One CDFG node of a kernel, for diagnostics ("warp 0 waits before p4 at foo.cpp:30").
struct site {
  const char* label;
  int line;
};

// One declared access of a site (an intrinsic call) to a memory space (a pool or a tensor_ref
// the kernel declares): the k-th execution of the site in one launch, for k % period == residue,
// touches elements [lo + (k / period) * stride, hi + (k / period) * stride) of space `space`.
// Calls of expanded regions run once: period 1, residue 0, stride 0.
struct site_access {
  int site;  // index into kernel_info::sites
  int space; // index into kernel_info::spaces
  std::int64_t lo, hi;
  std::int64_t stride;
  std::int64_t period;
  std::int64_t residue;
  bool write; // out/inout/view parameters write; in parameters only read
};

// The fields with no default are those every initializer must give (an aggregate; the
// compiler's -Wmissing-field-initializers checks them).
struct kernel_info { // NOLINT(cppcoreguidelines-pro-type-member-init)
  const char* name;    // kernel function name
  const char* source;  // input file the kernel came from
  int warp_count;      // number of warp functions passed to launch()
  const int* warp_ids; // the user's warp number of each warp function
  int channel_count;   // channels are numbered 1..channel_count
  const char*
      channel_kinds; // channel c is channel_kinds[c - 1]: 'd' data, 'r' buffer reuse (resource),
                     // 'f' the fence between regions (before and after loops kept as loops)
  const site* sites; // CDFG nodes (or loop-body calls), indexed by `site` arguments
  int site_count;
  long long pool_bytes; // on-tile memory the kernel's pools need
  // What the sites touch, for the `sim` backend's race check (S2P_RACE_CHECK); null: unchecked.
  const char* const* spaces = nullptr; // names of the memory spaces accesses refer to
  int space_count = 0;
  const site_access* accesses = nullptr; // declared accesses of the sites, any order
  int access_count = 0;
};

// Thrown by launch() when every live warp is blocked on a channel nobody can signal.
class deadlock_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Thrown by launch() on the `sim` backend when two warps touch the same elements, at least
// one writing, and no channel or fence orders them (kernel_info::accesses, S2P_RACE_CHECK).
class race_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class warp {
public:
  virtual ~warp() = default;
  virtual void wait(int channel, std::int64_t phase, int site) = 0;
  virtual void signal(int channel) = 0;
  virtual void step(int site, std::int64_t cycles) = 0;
  // A predicated call that does not run in this iteration: the site's execution count moves
  // on (the race checker numbers executions per site), nothing is accessed, no time passes.
  virtual void skip(int site) { (void)site; }
  virtual int id() const = 0;
};

// Type-erased warp function: the generated lambdas are passed through this.
struct warp_function {
  void* closure;
  void (*invoke)(void* closure, warp& w);
};

// Runs the warps of one kernel invocation to completion on the selected backend.
// Rethrows the first exception a warp threw; throws deadlock_error on deadlock.
void run_kernel(const kernel_info& info, const warp_function* warps);

// A buffer queue: `depth` buffer slots between one producer warp and one
// consumer warp, made of two channels: `filled` (data) and `freed` (resource). The
// producer calls dequeue_buffer (waits for a free slot) -> fills it -> queue_buffer; the
// consumer acquire_buffer (waits for a filled slot) -> consumes it -> release_buffer.
// Each side's counter is only touched by that side's warp.
class buffer_queue {
public:
  buffer_queue(int filled_channel, int freed_channel, int depth, int site = -1)
      : filled_(filled_channel), freed_(freed_channel), depth_(depth), site_(site) {
    if (depth <= 0)
      throw std::invalid_argument("s2p::rt::buffer_queue: depth must be positive");
  }
  // Producer: the slot to fill next, once its previous contents have been released.
  int dequeue_buffer(warp& producer) {
    producer.wait(freed_, produced_ + 1 - depth_, site_);
    return static_cast<int>(produced_ % depth_);
  }
  void queue_buffer(warp& producer) {
    producer.signal(filled_);
    ++produced_;
  }
  // Consumer: the slot to read next, once it has been filled.
  int acquire_buffer(warp& consumer) {
    consumer.wait(filled_, consumed_ + 1, site_);
    return static_cast<int>(consumed_ % depth_);
  }
  void release_buffer(warp& consumer) {
    consumer.signal(freed_);
    ++consumed_;
  }
  int depth() const { return depth_; }

private:
  int filled_, freed_, depth_, site_;
  std::int64_t produced_ = 0;
  std::int64_t consumed_ = 0;
};

// A loop kept as a loop runs `trips` iterations from `init` by `step`; the value that ends it
// (init + trips * step) must be one its variable's type holds, or the sequential loop wraps
// around before its condition ends it (unsigned char i < n with n = 300 never ends).
inline void check_loop_range(const char* kernel, const char* var, const char* type,
                             std::int64_t init, std::int64_t step, std::int64_t trips,
                             std::int64_t lowest, std::int64_t highest) {
  std::int64_t span = 0, last = 0;
  const bool overflow =
      __builtin_mul_overflow(trips, step, &span) || __builtin_add_overflow(init, span, &last);
  if (!overflow && last >= lowest && last <= highest)
    return;
  throw std::invalid_argument(std::string("seq2par: kernel '") + kernel + "': loop '" + var +
                              "' (" + type + ") would step past the range of its type before " +
                              "its bound ends it (" + std::to_string(trips) + " iterations from " +
                              std::to_string(init) + "); the sequential loop never ends as " +
                              "written: give the variable a type that holds the bound");
}

// The bytes a tensor_ref covers, and whether the kernel writes through it.
struct memory_span {
  const char* name;
  std::uintptr_t begin, end;
  bool written;
};
template <class T> memory_span span_of(const char* name, const tensor_ref<T>& t, bool written) {
  const auto begin = reinterpret_cast<std::uintptr_t>(t.data());
  return {name, begin, begin + t.count() * t.size() * sizeof(T), written};
}
// seq2par orders a kernel's accesses per tensor_ref: two tensor_refs over overlapping
// memory, one of them written, would race unseen. Refused before any warp starts.
inline void check_disjoint_tensor_refs(const char* kernel, std::initializer_list<memory_span> spans) {
  for (auto a = spans.begin(); a != spans.end(); ++a)
    for (auto b = a + 1; b != spans.end(); ++b)
      if ((a->written || b->written) && a->begin < b->end && b->begin < a->end)
        throw std::invalid_argument(std::string("seq2par: kernel '") + kernel +
                                    "': tensor_refs '" + a->name + "' and '" + b->name +
                                    "' overlap in memory, and the kernel writes through " +
                                    (a->written ? a->name : b->name) +
                                    "; seq2par orders accesses per tensor_ref, so pass "
                                    "tensor_refs over disjoint memory");
}

// The elements of a multi-tile task's tile block (Xt(b)) an intrinsic call touches: the
// default cost of the call's block arguments on the simulator.
template <class Block> std::int64_t block_elements(const Block& block) {
  return static_cast<std::int64_t>(block.size());
}

// Iterations of `for (i = init; i < bound; i += step)` (step > 0).
inline std::int64_t trip_count(std::int64_t init, std::int64_t bound, std::int64_t step) {
  return bound > init ? (bound - init + step - 1) / step : 0;
}

// Everything the `sim` backend measured so far in this process, as the JSON report that
// S2P_REPORT would receive at exit ("{}" if no kernel ran on the simulator).
std::string sim_report_json();

// The backend S2P_BACKEND selects ("threads", "sim", "mpi"); throws on an unknown name, and
// on "mpi" when this runtime was built without MPI.
std::string backend_name();

template <class... Warps> void launch(const kernel_info& info, Warps&&... warps) {
  static_assert(sizeof...(Warps) > 0, "a kernel needs at least one warp");
  const warp_function table[] = {warp_function{
      const_cast<void*>(static_cast<const void*>(&warps)), [](void* closure, warp& w) {
        (*static_cast<std::remove_reference_t<Warps>*>(closure))(w);
      }}...};
  if (info.warp_count != static_cast<int>(sizeof...(Warps)))
    throw std::logic_error(
        "s2p::rt::launch: kernel_info.warp_count does not match the warp functions");
  run_kernel(info, table);
}

// --- multi-tile kernels: one image, run by every tile --------------------------------------

// A pool a forall's task body declares when seq2par splits the body into warps (a composed
// task): one task's pools take room on its tile while the tile computes (a tile runs its tasks
// one after another, so it holds one set at a time). seq2par writes them into the launch
// description, since they are known only inside the body.
struct task_pool {
  const char* name;        // the pool variable in the task body
  long long element_bytes; // sizeof its element (the pool's alignment comes from it)
  long long bytes;         // elements x element_bytes, as the warp kernel's pool_bytes counts
};

// The code of a forall's task body on a tile that runs its tasks, as seq2par estimates it
// (one image per warp of a body split into warps, else one): it takes room on the tile for the
// whole launch.
struct code_image {
  const char* name; // "body", "warp0", ...
  long long bytes;  // seq2par's estimate (a base per image plus a cost per operation)
};

// The fields with no default are those every initializer must give (an aggregate; the
// compiler's -Wmissing-field-initializers checks them).
struct tile_kernel_info { // NOLINT(cppcoreguidelines-pro-type-member-init)
  const char* name;   // kernel function name
  const char* source; // input file
  int tiles;          // S2P_TILES(n)
  // The step's schedule name when the kernel has several steps ("<kernel>.<k>", as seq2par
  // names their templates); null: the kernel's name.
  const char* schedule = nullptr;
  // The step's forall's task pools (null, 0: its tasks are not split into warps).
  const task_pool* task_pools = nullptr;
  int task_pool_count = 0;
  // The forall's code images (null, 0: none counted, as in code written before they were).
  const code_image* code_images = nullptr;
  int code_image_count = 0;
  // seq2par proved that the forall's body never reads its output (it only assigns it with `=`):
  // a stolen task then needs no copy of the output's current values. False (the default, and
  // in code written before): the thief gets them.
  bool output_write_only = false;
};

// --- a multi-tile kernel's results on the mpi ranks ------------------------------------------
// On the mpi backend each rank computes its share of a step in place. Inside a multi-tile
// kernel's call the result then stays where it was computed -- each rank holds the current values
// of the rows it computed -- and a later step fetches from their owners only the elements its
// share reads (a stencil's halo, a pivot row); when the kernel returns, every rank receives the
// whole of every field the kernel wrote, so the host code after it sees what the sequential
// program sees. A multi-tile kernel's body runs nothing but steps between them (seq2par's front
// end refuses the rest), so nothing else reads a field in between.

// A field as memory, whatever its rank and element type: element (0, ..., 0), the element size,
// and the extent and strides in elements.
struct field_memory {
  std::byte* base = nullptr;
  std::int64_t element_bytes = 0;
  std::vector<std::int64_t> extent, strides;
};
// A rectangle of a field's elements (offset and size per axis).
struct memory_box {
  std::vector<std::int64_t> offset, size;
  friend bool operator==(const memory_box& a, const memory_box& b) {
    return a.offset == b.offset && a.size == b.size;
  }
};

// What generated code opens around a multi-tile kernel's body (`info`: its first step's).
// Leaving the outermost one gives every rank the whole of the results kept on the ranks;
// on the other backends it does nothing.
class kernel_scope {
public:
  explicit kernel_scope(const tile_kernel_info& info);
  ~kernel_scope();
  kernel_scope(const kernel_scope&) = delete;
  kernel_scope& operator=(const kernel_scope&) = delete;

private:
  const tile_kernel_info& info_;
};

// Gives every rank the whole of the results kept on the ranks now (before a launch that reads
// fields on the host, or runs as a tile program). Does nothing when none are kept.
void gather_kept_results(const tile_kernel_info& info);

enum class collective_kind { all_reduce, reduce_scatter, all_gather };

// What a reduce-scatter leaves outside the fragment each tile owns (the flat ring's partial
// results, part of its meaning): `kept` - the program may read them; `overwritten` - nothing
// reads them, because the kernel's next step all-gathers the same rows (seq2par says so). Then
// only the owned fragments are the launch's result, and an exact combine may run
// hierarchically across chips (s2p::rt::collective_algorithm).
enum class ring_partials { kept, overwritten };

// A ring collective over contiguous rows (row t = tile t), type-erased for the library.
struct collective_args {
  collective_kind kind;
  const char* element_type; // the schedule's spelling: "f32", "f64", "i32", ...
  const char* op;           // "sum", "max", "min", "prod" ("copy" for all-gather)
  std::size_t element_bytes;
  std::int64_t elements_per_tile;
  void* rows;
  void (*combine)(void* mine, const void* received, std::size_t count);
  ring_partials partials; // a reduce-scatter's: read by the program or overwritten next
};

// Whether this runtime was built with the fabric simulator (multi-tile kernels on `sim`).
bool has_fabric_simulator();

// Runs the collective on the selected backend: `sim` moves the rows through the fabric
// simulator (the ring schedule of s2p-sim gen, timed), `threads` replays each fragment's chain
// of the ring in place, the fragments dealt to the in-place workers. Both combine in the ring order of
// <seq2par/collectives.h>, so results equal the sequential run bit for bit (on chips the kernel's
// tiles span, an integer all-reduce - or an integer reduce-scatter whose partials are
// overwritten - runs hierarchically on the simulator: every order of an exact combine gives the
// same bits; see that header).
void run_collective(const tile_kernel_info& info, const collective_args& args);

template <class T> constexpr const char* element_type_name() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, double>)
    return "f64";
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1)
    return std::is_signed_v<T> ? "i8" : "u8";
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 2)
    return std::is_signed_v<T> ? "i16" : "u16";
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4)
    return std::is_signed_v<T> ? "i32" : "u32";
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8)
    return std::is_signed_v<T> ? "i64" : "u64";
  else
    static_assert(sizeof(T) == 0, "collectives need an arithmetic element type");
}

template <class T, class Op>
void collective(const tile_kernel_info& info, collective_kind kind, const field<2, T>& rows, Op,
                ring_partials partials = ring_partials::kept) {
  // The sequential library's own check, with its message: rows it refuses are refused here
  // too, on every backend (all_reduce starts with its reduce-scatter).
  detail::check_rows(rows, kind == collective_kind::all_gather ? "all_gather" : "reduce_scatter");
  if (rows.extent()[0] != info.tiles)
    throw std::invalid_argument(std::string("seq2par: kernel '") + info.name + "' spans " +
                                std::to_string(info.tiles) +
                                " tiles but its collective's field has " +
                                std::to_string(rows.extent()[0]) + " rows (one per tile)");
  gather_kept_results(info); // the copy below and the ring read the rows on every rank
  const std::int64_t elements = rows.extent()[1];
  const bool contiguous = rows.offset_of({1, 0}) == elements && rows.offset_of({0, 1}) == 1;
  std::vector<T> copy;
  T* data = rows.data();
  if (!contiguous) { // a transposed or sectioned view: work on a contiguous copy
    copy.resize(static_cast<std::size_t>(rows.size()));
    for (std::int64_t t = 0; t < info.tiles; ++t)
      for (std::int64_t x = 0; x < elements; ++x)
        copy[static_cast<std::size_t>(t * elements + x)] = rows(t, x);
    data = copy.data();
  }
  const collective_args args{kind,
                             element_type_name<T>(),
                             kind == collective_kind::all_gather ? "copy" : Op::name(),
                             sizeof(T),
                             elements,
                             data,
                             [](void* mine, const void* received, std::size_t count) {
                               T* m = static_cast<T*>(mine);
                               const T* r = static_cast<const T*>(received);
                               for (std::size_t i = 0; i < count; ++i)
                                 m[i] = Op{}(m[i], r[i]);
                             },
                             partials};
  run_collective(info, args);
  if (!contiguous)
    for (std::int64_t t = 0; t < info.tiles; ++t)
      for (std::int64_t x = 0; x < elements; ++x)
        rows(t, x) = copy[static_cast<std::size_t>(t * elements + x)];
}

} // namespace s2p::rt

#include <seq2par/tile_program.h>
#include <seq2par/forall.h>
// The planner's templates that depend on the rank alone, compiled once in the runtime library.
#include <seq2par/planning_ranks.h>
