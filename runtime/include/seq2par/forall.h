// <seq2par/forall.h> — a multi-tile kernel's forall as generated code calls it: the fields it
// reads (`reads`, `writes`, `tile_reads`), the refusals every backend makes alike (fields that
// share memory, a map over the wrong tile count), and the two ways it runs:
//   - as a tile program (<seq2par/tile_program.h>): owner-copy's moves into each tile's
//     buffers, the tasks on their tiles, the results stored back; what the fabric simulator
//     and the mpi backend run, and the threads backend with S2P_THREADS_OWNER_COPY=1;
//   - in place, on the threads backend and on the mpi backend's ranks: the body on the fields
//     themselves, the output's rows (or blocks) dealt to the host's worker threads (on mpi,
//     first to the ranks, which then gather what the others wrote), no plan and no copies:
//     where every worker sees every field the copies only model the fabric, and the refusals
//     above make in-place reads see what the copies would hold.
// C++17, like the rest of what generated code includes.
#pragma once

#include <seq2par/field_loops.h>
#include <seq2par/memory_overlap.h>
#include <seq2par/rank_lifting.h>
#include <seq2par/tile_program.h>

#include <algorithm>
#include <array>
#include <optional>
#include <type_traits>
#include <utility>

namespace s2p::rt {

// --- where a forall runs (runtime/src/tile/threads/forall_in_place.cpp) ---------------------

// The tile program (sim; threads with S2P_THREADS_OWNER_COPY=1; mpi with S2P_MPI_OWNER_COPY=1),
// or in place on the threads backend's workers or on the mpi backend's ranks. Throws as every
// launch does for a kernel that spans no tiles or a bad setting.
enum class forall_placement { tile_program, threads_in_place, ranks_in_place };
forall_placement forall_placement_of(const tile_kernel_info& info);

// Runs part(first, last) over contiguous parts of [0, count) on the host's worker threads
// (S2P_THREADS of them, default one per core, the calling thread among them; threads kept
// between launches), returning once every part has; then rethrows the exception of the first
// part, in order, that threw.
void run_parts_in_place(std::int64_t count,
                        const std::function<void(std::int64_t first, std::int64_t last)>& part);

// A forall's parts as the mpi backend's ranks run them in place (every rank holds every field
// at a kernel's entry: the program is SPMD): `compute` a range of [0, count) in place, `pack`
// appends the bytes a range wrote, `unpack` stores another rank's packed range.
// `kept` (a global-view forall): what a range of the parts writes and reads, so that inside a
// multi-tile kernel the result can stay on the ranks (see kernel_scope in <seq2par/runtime.h>):
// the fields written (the output, then a fused forall's further outputs), the part of them
// a range writes (in their coordinates), the fields read and, per field read, the rectangles
// a range reads (a superset of its reads; the output's own part among them).
struct kept_launch {
  std::vector<field_memory> written;
  std::function<memory_box(std::int64_t first, std::int64_t last)> part;
  std::vector<field_memory> read;
  std::function<std::vector<std::vector<memory_box>>(std::int64_t first, std::int64_t last)>
      reads;
};
struct rank_parts {
  std::function<void(std::int64_t first, std::int64_t last)> compute;
  std::function<void(std::int64_t first, std::int64_t last, std::vector<std::byte>& out)> pack;
  std::function<void(std::int64_t first, std::int64_t last, const std::byte* in)> unpack;
  const kept_launch* kept = nullptr;
};
// Rank r computes [count * r / R, count * (r + 1) / R) on its workers (run_parts_in_place).
// Inside a multi-tile kernel, with `kept`, it first receives from their owners the elements of
// kept results its range reads, and its result stays where it is; otherwise every rank then
// receives every other rank's share (one MPI_Allgatherv): on return each holds the whole
// result. A failure on any rank ends the job, as the tile program's do
// (runtime/src/tile/mpi/mpi_in_place.cpp).
void run_parts_on_ranks(const tile_kernel_info& info, std::int64_t count, const rank_parts& parts);

// --- forall ---------------------------------------------------------------------------------

// A forall body that is one `if` whose condition is exactly a box on the index (seq2par checks
// it: `if (i[0] >= 1 && i[0] < n - 1) ...`), [lower, upper) per axis: the tile program calls the
// guarded body for every index, as written; a forall in place runs the index over the box alone
// and calls the body without its test, which then vectorizes as the plain loop over the
// interior does.
template <int N, class Guarded, class Unguarded> struct box_guarded_body {
  std::array<std::int64_t, N> lower, upper;
  Guarded guarded;
  Unguarded unguarded;
  template <class... Args> void operator()(Args&&... args) const {
    guarded(std::forward<Args>(args)...);
  }
};
template <int N, class Guarded, class Unguarded>
box_guarded_body<N, Guarded, Unguarded> box_guarded(const std::array<std::int64_t, N>& lower,
                                                    const std::array<std::int64_t, N>& upper,
                                                    Guarded guarded, Unguarded unguarded) {
  return {lower, upper, std::move(guarded), std::move(unguarded)};
}
template <class Body> struct is_box_guarded : std::false_type {};
template <int N, class G, class U> struct is_box_guarded<box_guarded_body<N, G, U>> : std::true_type {};

// An agile field a forall reads, with the index maps it is read through: element maps in
// the global view, block maps in the local-global view.
// `written`: a field a fused forall (operation fusion, seq2par --plan) also writes, besides its
// output. It is on the output's map and accessed only at the task's own index, so it moves
// nowhere: its owned blocks are loaded, the body reads and writes them in place, and they are
// stored back with the output's.
// `of_output`: the forall's own output, read at other indices that no iteration writes (the
// front end proved it with the access relations): planned as an input, read through the
// output's view.
// The fields with no default are those every initializer must give (an aggregate; the
// compiler's -Wmissing-field-initializers checks them).
template <int N, class T> struct forall_input { // NOLINT(cppcoreguidelines-pro-type-member-init)
  const agile_field<N, T>* field;
  const char* name;
  std::vector<index_map<N>> maps;
  access_view view = access_view::global;
  bool written = false;
  bool of_output = false;
};
template <int N, class T>
forall_input<N, T> reads(const agile_field<N, T>& field, const char* name,
                         std::vector<index_map<N>> maps) {
  return {&field, name, std::move(maps), access_view::global};
}
template <int N, class T>
forall_input<N, T> reads_of_output(const agile_field<N, T>& output, const char* name,
                                   std::vector<index_map<N>> maps) {
  return {&output, name, std::move(maps), access_view::global, false, true};
}
// A further field a fused forall writes (global view): planned like an input read at the
// task's own index, so the tile program is the one seq2par plans for the schedule template.
template <int N, class T>
forall_input<N, T> writes(const agile_field<N, T>& field, const char* name) {
  static_assert(!std::is_const_v<T>, "a forall writes only fields it may modify");
  return {&field, name, {index_map<N>::identity()}, access_view::global, true};
}
template <int N, class T>
forall_input<N, T> tile_reads(const tile_blocks<N, T>& blocks, const char* name,
                              std::vector<index_map<N>> maps) {
  return {&blocks.agile(), name, std::move(maps), access_view::local_global};
}

namespace forall_detail {

// A field's tile buffers: its layout and how to copy owned blocks in and out.
template <int N, class T> struct binding {
  binding(const agile_field<N, T>& a, block_layout<N> l, std::string n)
      : global(a.data()), layout(std::move(l)), name(std::move(n)) {}
  // Stores the owned blocks back: a fused forall's further outputs (`writes`).
  void copy_out(int tile, std::byte* local) const {
    if constexpr (!std::is_const_v<T>)
      copy(tile, local, false);
  }
  void copy(int tile, std::byte* local, bool in) const {
    T* base = reinterpret_cast<T*>(local);
    for (const auto& b : layout.owned(tile)) {
      const grid<N> g = layout.block_grid(b);
      T* dst = base + layout.offset(tile, b);
      for (std::int64_t k = 0; k < g.total_extent(); ++k) {
        T& element = global[g.offset + delinearize(k, g.size)];
        if (in)
          dst[k] = element;
        else
          element = dst[k];
      }
    }
  }
  field<N, T> global;
  block_layout<N> layout;
  std::string name;
};

// Each tile reads its inputs as they were before the forall, where the sequential loop would
// read elements it has already written: no input may share memory with the output (views of
// one buffer are fine where they are apart).
// A fused forall's further outputs (`writes`) are held to the same rule against every other
// field it names.
template <int N, class Out, class... In>
void refuse_shared_memory(const agile_field<N, Out>& out, const char* out_name,
                          const forall_input<N, In>&... inputs) {
  const std::array<bool, sizeof...(In)> shared{
      (!inputs.of_output && share_memory(out.data(), inputs.field->data()))...};
  const std::array<const char*, sizeof...(In)> names{inputs.name...};
  for (std::size_t k = 0; k < shared.size(); ++k)
    if (shared[k])
      throw std::invalid_argument(std::string("seq2par: a forall reads '") + names[k] +
                                  "', which shares memory with '" + out_name +
                                  "', the field it writes (tiles would read elements other "
                                  "tiles overwrite); write the result to a separate buffer");
  const std::array<bool, sizeof...(In)> written{inputs.written...};
  if (std::none_of(written.begin(), written.end(), [](bool w) { return w; }))
    return;
  std::size_t j = 0;
  [[maybe_unused]] const auto check = [&](const auto& input) {
    const std::array<bool, sizeof...(In)> with{
        share_memory(input.field->data(), inputs.field->data())...};
    for (std::size_t k = 0; k < with.size(); ++k)
      if (k != j && (written[j] || written[k]) && with[k])
        throw std::invalid_argument(std::string("seq2par: a fused forall names '") + names[j] +
                                    "' and '" + names[k] +
                                    "', which share memory, and writes one of them; write the "
                                    "results to separate buffers");
    ++j;
  };
  (check(inputs), ...);
}

// What every backend refuses before a forall runs: an output map over another tile count
// than the kernel's, fields that share memory.
template <int N, class Out, class... In>
void refuse_misuse(int tiles, const agile_field<N, Out>& out, const char* out_name,
                   const forall_input<N, In>&... inputs) {
  if (out.map().tiles() != tiles)
    throw std::invalid_argument("seq2par: the output of a forall is distributed over " +
                                std::to_string(out.map().tiles()) + " tiles but the kernel spans " +
                                std::to_string(tiles));
  refuse_shared_memory(out, out_name, inputs...);
}

template <int N, class Out, class... In> struct planned_forall {
  tile_program program;
  std::shared_ptr<const std::vector<std::vector<forall_task>>> runs; // per tile, the tasks it runs
  std::shared_ptr<std::tuple<binding<N, Out>, binding<N, In>...>> bindings;
};

// The plan (plan_forall) with each field's data bound to its tile buffers: the program's
// moves, load and store; the caller adds the compute.
// Each tile reads its copy of a shared structure as it was when the forall started, where the
// sequential loop would read elements it has already written: the output may not share memory
// with a structure the forall reads (compared by their byte spans).
template <int N, class Out, class... Views>
void refuse_shared_alias(const agile_field<N, Out>& out, const char* out_name,
                         const std::tuple<Views...>& views) {
  const byte_span o = field_span(out.data());
  std::apply(
      [&](const auto&... v) {
        const std::array<byte_span, sizeof...(Views)> spans{field_span(v.host)...};
        for (const byte_span& s : spans)
          if (o.lo < s.hi && s.lo < o.hi)
            throw std::invalid_argument(std::string("seq2par: a forall reads an S2P_SHARED "
                                                    "structure that shares memory with '") +
                                        out_name + "', the field it writes; write the result "
                                                   "to a separate buffer");
      },
      views);
}

// The fields a forall reads as the plan sees them (their maps and index maps, no data).
template <int N, class... In>
std::vector<forall_field_spec<N>> input_specs(const forall_input<N, In>&... inputs) {
  return {forall_field_spec<N>{inputs.name, element_type_name<In>(),
                               static_cast<std::int64_t>(sizeof(In)), &inputs.field->map(),
                               inputs.maps, inputs.view}...};
}

template <int N, class Out, class... In, std::size_t... I>
planned_forall<N, Out, In...>
plan(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out, const char* out_name,
     std::index_sequence<I...>, const forall_input<N, In>&... inputs) {
  refuse_misuse(tiles, out, out_name, inputs...);
  const std::vector<forall_field_spec<N>> specs = input_specs<N>(inputs...);
  // Work stealing returns a stolen task's output blocks only: a thief's updates of a fused
  // forall's further outputs (`writes`) would stay in its copy. Such a forall runs every task
  // at home.
  const bool writes_further_outputs = (inputs.written || ...);
  std::optional<steal_costs> stealing;
  if (work_stealing_enabled() && !writes_further_outputs)
    stealing = work_stealing_costs(info);
  forall_layout<N> layout = plan_forall<N>(
      tiles,
      {out_name, element_type_name<Out>(), static_cast<std::int64_t>(sizeof(Out)), &out.map(), {}},
      specs, stealing, true);

  planned_forall<N, Out, In...> result;
  result.program = std::move(layout.program);
  const std::array<bool, sizeof...(In)> written{inputs.written...};
  for (std::size_t k = 0; k < written.size(); ++k)
    result.program.fields[k + 1].written = written[k];
  result.program.task_pools = task_pools_of(info);
  result.program.code_images = code_images_of(info);
  result.runs =
      std::make_shared<const std::vector<std::vector<forall_task>>>(std::move(layout.runs));
  result.bindings = std::make_shared<std::tuple<binding<N, Out>, binding<N, In>...>>(
      binding<N, Out>(out, std::move(layout.layouts[0]), out_name),
      binding<N, In>(*inputs.field, std::move(layout.layouts[I + 1]), inputs.name)...);
  auto shared = result.bindings;
  result.program.load = [shared](int tile, const tile_memory& memory) {
    std::get<0>(*shared).copy(tile, memory(0).data, true);
    (std::get<I + 1>(*shared).copy(tile, memory(static_cast<int>(I + 1)).data, true), ...);
  };
  // Only the output goes back, and the fields a fused forall also writes.
  result.program.store = [shared, written](int tile, const tile_memory& memory) {
    (void)written; // a forall without inputs has none
    std::get<0>(*shared).copy(tile, memory(0).data, false);
    ((written[I] ? std::get<I + 1>(*shared).copy_out(tile, memory(static_cast<int>(I + 1)).data)
                 : void()),
     ...);
  };
  return result;
}

// --- in place (the threads backend) -------------------------------------------------------

// The refusals of the tile program (refuse_misuse, and a read outside an input, which the plan
// finds), made once for a forall that runs in place.
template <int N, class Out, class... In>
void refuse_in_place(int tiles, const agile_field<N, Out>& out, const char* out_name,
                     const forall_input<N, In>&... inputs) {
  refuse_misuse(tiles, out, out_name, inputs...);
  const std::string error = footprint_error<N>(out.map(), accesses_of(input_specs<N>(inputs...)));
  if (!error.empty())
    throw std::invalid_argument("seq2par: " + error);
}

// The axis a global-view forall's parts are cut along: the first, whole rows, as an OpenMP
// `parallel for` over the outer loop deals them; the longest one when the first has fewer than
// kShortAxis elements (a few long rows), so that every worker gets a part.
inline constexpr std::int64_t kShortAxis = 64;
template <int N> int dealing_axis(const extent<N>& e) {
  int axis = 0;
  for (int d = 1; d < N; ++d)
    if (e[0] < kShortAxis && e[d] > e[axis])
      axis = d;
  return axis;
}

// The fields of the S2P_SHARED structures a body reads, as the kernel has them (in place, a
// body reads them where they lie, as it reads the fields).
template <class... Views> auto host_structures(const shared_reads<Views...>& shared) {
  return std::apply([](const auto&... v) { return std::make_tuple(v.host...); }, shared.views);
}

// Xt(b) on shared memory: algorithmic block b of the field itself, as the sequential
// program's tiles(x)(b) is (inputs read-only).
template <int N, class T> class blocks_in_place {
public:
  blocks_in_place(field<N, T> whole, extent<N> algorithmic)
      : whole_(whole), algorithmic_(algorithmic) {}
  field<N, T> operator()(const index<N>& block) const {
    return whole_.section(resource_map<N>::block_grid(whole_.extent(), algorithmic_, block));
  }
  s2p::extent<N> blocks() const {
    return resource_map<N>::block_counts(whole_.extent(), algorithmic_);
  }

private:
  field<N, T> whole_;
  extent<N> algorithmic_;
};

// Runs `compute` over [0, count) in place: on the threads backend's workers, or on the mpi
// backend's ranks, each rank then receiving the others' shares of what `write` packs or
// unpacks: write(first, last, out, in) appends [first, last)'s written elements to `out`, or
// (out null) stores them from `in` and returns the end of what it read.
template <class Compute, class Write>
void run_in_place(const tile_kernel_info& info, bool on_ranks, std::int64_t count,
                  Compute compute, Write write, const kept_launch* kept = nullptr) {
  if (!on_ranks)
    return run_parts_in_place(count, compute);
  rank_parts parts;
  parts.kept = kept;
  parts.compute = compute;
  parts.pack = [&](std::int64_t first, std::int64_t last, std::vector<std::byte>& out) {
    write(first, last, &out, nullptr);
  };
  parts.unpack = [&](std::int64_t first, std::int64_t last, const std::byte* in) {
    write(first, last, nullptr, in);
  };
  run_parts_on_ranks(info, count, parts);
}

// A field as memory, and a grid as a rectangle of it (the mpi backend's bookkeeping of
// results kept on the ranks).
template <int N, class T> field_memory memory_of(const field<N, T>& f) {
  field_memory m;
  // The ranks write into the fields the forall writes; the others they only read.
  m.base = reinterpret_cast<std::byte*>(const_cast<std::remove_const_t<T>*>(f.data()));
  m.element_bytes = static_cast<std::int64_t>(sizeof(T));
  const extent<N> e = f.extent();
  m.extent.assign(e.v.begin(), e.v.end());
  m.strides.assign(f.strides().begin(), f.strides().end());
  return m;
}
template <int N> memory_box box_of(const grid<N>& g) {
  return {{g.offset.v.begin(), g.offset.v.end()}, {g.size.v.begin(), g.size.v.end()}};
}

// The rectangles of `input` that output indices `part` read through its maps, inside the
// input (a read outside it is refused before the launch); the part itself for a field a fused
// forall writes (at the task's own index).
template <int N, class In>
std::vector<memory_box> read_boxes(const forall_input<N, In>& input, const grid<N>& part) {
  if (input.written)
    return {box_of(part)};
  const extent<N> whole = input.field->extent();
  std::vector<memory_box> boxes;
  for (const index_map<N>& map : input.maps) {
    grid<N> g = map.apply(part, whole);
    for (int d = 0; d < N; ++d) {
      const std::int64_t lo = std::max<std::int64_t>(g.offset[d], 0);
      const std::int64_t hi = std::min<std::int64_t>(g.offset[d] + g.size[d], whole[d]);
      g.offset[d] = lo;
      g.size[d] = std::max<std::int64_t>(hi - lo, 0);
    }
    if (g.total_extent() > 0 && std::find(boxes.begin(), boxes.end(), box_of(g)) == boxes.end())
      boxes.push_back(box_of(g));
  }
  return boxes;
}

// What ranges of a global-view forall's parts write and read, for kept results (null when an
// input is read in the local-global view: that forall's result is gathered at once).
template <int N, class Out, class PartOf, class... In>
std::optional<kept_launch> kept_launch_of(const agile_field<N, Out>& out, PartOf part_of,
                                          const forall_input<N, In>&... inputs) {
  if (((inputs.view != access_view::global) || ...))
    return std::nullopt;
  kept_launch kept;
  kept.written.push_back(memory_of(out.data()));
  ((inputs.written ? kept.written.push_back(memory_of(inputs.field->data())) : void()), ...);
  kept.part = [part_of](std::int64_t first, std::int64_t last) {
    return box_of(part_of(first, last));
  };
  kept.read = {memory_of(out.data()), memory_of(inputs.field->data())...};
  kept.reads = [part_of, &inputs...](std::int64_t first, std::int64_t last) {
    const grid<N> part = part_of(first, last);
    return std::vector<std::vector<memory_box>>{{box_of(part)}, read_boxes(inputs, part)...};
  };
  return kept;
}

// Full global view in place: body(i, out, in...) for every index of the output, the output's
// rows dealt to the workers; each field read where it lies (the refusals keep inputs apart
// from what the forall writes, and the body reads its output only at its own index).
template <int N, class Out, class Body, class... Shared, class... In, std::size_t... I>
void run_global_in_place(const tile_kernel_info& info, bool on_ranks, int tiles,
                         const agile_field<N, Out>& out, const char* out_name, Body& body,
                         const shared_reads<Shared...>& shared, std::index_sequence<I...>,
                         const forall_input<N, In>&... inputs) {
  refuse_in_place(tiles, out, out_name, inputs...);
  const extent<N> whole = out.extent();
  if (whole.size() == 0)
    return;
  const int axis = dealing_axis(whole);
  const auto part_of = [&](std::int64_t first, std::int64_t last) {
    grid<N> part{whole, index<N>{}};
    part.offset[axis] = first;
    part.size[axis] = last - first;
    return part;
  };
  const auto compute = [&](std::int64_t first, std::int64_t last) {
    field<N, Out> output = out.data();
    std::tuple<field<N, In>...> views{inputs.field->data()...};
    auto structures = host_structures(shared);
    if constexpr (is_box_guarded<Body>::value) {
      // Only the indices where the guard holds, without testing it.
      grid<N> part = part_of(first, last);
      for (int d = 0; d < N; ++d) {
        const auto u = static_cast<std::size_t>(d);
        const std::int64_t lo = std::max(part.offset[d], body.lower[u]);
        const std::int64_t hi = std::min(part.offset[d] + part.size[d], body.upper[u]);
        part.offset[d] = lo;
        part.size[d] = std::max<std::int64_t>(0, hi - lo);
      }
      versioned_on_unit_stride([&] {
        for_each_index(part, [&](const index<N>& i) {
          std::apply([&](auto&... c) { body.unguarded(i, output, std::get<I>(views)..., c...); },
                     structures);
        });
      }, output, std::get<I>(views)...);
    } else {
      versioned_on_unit_stride([&] {
        for_each_index(part_of(first, last), [&](const index<N>& i) {
          std::apply([&](auto&... c) { body(i, output, std::get<I>(views)..., c...); }, structures);
        });
      }, output, std::get<I>(views)...);
    }
  };
  // The output, then the further fields a fused forall writes (at the task's own index).
  const auto write = [&](std::int64_t first, std::int64_t last, std::vector<std::byte>* to,
                         const std::byte* from) {
    const grid<N> part = part_of(first, last);
    if (to) {
      pack_grid(out.data(), part, *to);
      ((inputs.written ? pack_grid(inputs.field->data(), part, *to) : void()), ...);
      return from;
    }
    from = unpack_grid(out.data(), part, from);
    ((from = inputs.written ? unpack_grid(inputs.field->data(), part, from) : from), ...);
    return from;
  };
  const std::optional<kept_launch> kept =
      on_ranks ? kept_launch_of(out, part_of, inputs...) : std::nullopt;
  run_in_place(info, on_ranks, whole[axis], compute, write, kept ? &*kept : nullptr);
}

// Local-global view in place: body(b, out_blocks, in_blocks...) for every algorithmic block of
// the output, runs of blocks (in row-major order) dealt to the workers.
template <int N, class Out, class Body, class... Shared, class... In, std::size_t... I>
void run_local_global_in_place(const tile_kernel_info& info, bool on_ranks, int tiles,
                               const agile_field<N, Out>& out, const char* out_name, Body& body,
                               const shared_reads<Shared...>& shared, std::index_sequence<I...>,
                               const forall_input<N, In>&... inputs) {
  refuse_in_place(tiles, out, out_name, inputs...);
  const extent<N> algorithmic = out.map().algorithmic_block();
  const extent<N> counts = resource_map<N>::block_counts(out.extent(), algorithmic);
  // A task writes its own output block only.
  const auto write = [&](std::int64_t first, std::int64_t last, std::vector<std::byte>* to,
                         const std::byte* from) {
    for (std::int64_t k = first; k < last; ++k) {
      const grid<N> g = resource_map<N>::block_grid(out.extent(), algorithmic, delinearize(k, counts));
      if (to)
        pack_grid(out.data(), g, *to);
      else
        from = unpack_grid(out.data(), g, from);
    }
    return from;
  };
  run_in_place(info, on_ranks, counts.size(), [&](std::int64_t first, std::int64_t last) {
    blocks_in_place<N, Out> output(out.data(), out.map().algorithmic_block());
    std::tuple<blocks_in_place<N, const In>...> views{blocks_in_place<N, const In>(
        inputs.field->data(), inputs.field->map().algorithmic_block())...};
    auto structures = host_structures(shared);
    for (std::int64_t k = first; k < last; ++k)
      std::apply(
          [&](auto&... c) { body(delinearize(k, counts), output, std::get<I>(views)..., c...); },
          structures);
  }, write);
}

// The output's view reads the elements its tile does not own from `reads` when that input is
// the output itself, read at other indices.
template <int N, class Out, class In>
void read_output_also(tile_view<N, Out>& output, const tile_view<N, In>& reads, bool of_output) {
  if constexpr (std::is_same_v<Out, In>) {
    if (of_output)
      output.read_also(reads);
  }
}

template <int N, class Out, class Body, class... Shared, class... In, std::size_t... I>
void run_global(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
                const char* out_name, Body body, const shared_reads<Shared...>& shared,
                std::index_sequence<I...> seq, const forall_input<N, In>&... inputs) {
  refuse_shared_alias(out, out_name, shared.views);
  // A fused forall's further outputs (`writes`) are outputs too.
  ((inputs.written ? refuse_shared_alias(*inputs.field, inputs.name, shared.views) : void()), ...);
  if (const auto where = forall_placement_of(info); where != forall_placement::tile_program)
    return run_global_in_place(info, where == forall_placement::ranks_in_place, tiles, out,
                               out_name, body, shared, seq, inputs...);
  auto planned = plan(info, tiles, out, out_name, seq, inputs...);
  constexpr int first_shared = static_cast<int>(1 + sizeof...(In));
  add_shared(planned.program, shared, first_shared);
  const extent<N> parent = out.map().parent(), algorithmic = out.map().algorithmic_block();
  const std::array<bool, sizeof...(In)> of_output{inputs.of_output...};
  planned.program.compute = [bindings = planned.bindings, runs = planned.runs, body, parent,
                             algorithmic, shared_views = shared.views, of_output](
                                int tile, const tile_memory& memory) -> std::int64_t {
    (void)of_output; // a forall without inputs has none
    const auto& out_layout = std::get<0>(*bindings).layout;
    tile_view<N, Out> output(regions_of<N, Out>(memory(0), out_layout, tile), out_layout,
                                   tile);
    const std::tuple<tile_view<N, In>...> views{tile_view<N, In>(
        regions_of<N, In>(memory(static_cast<int>(I + 1)), std::get<I + 1>(*bindings).layout,
                          tile),
        std::get<I + 1>(*bindings).layout, tile)...};
    (read_output_also(output, std::get<I>(views), of_output[I]), ...);
    // The tile's copies of the shared structures the body reads (after the fields' views).
    const auto copies = std::apply(
        [&](const auto&... v) { return std::make_tuple(shared_copy(v, memory, first_shared)...); },
        shared_views);
    std::int64_t elements = 0;
    for (const forall_task& task : (*runs)[static_cast<std::size_t>(tile)]) {
      const grid<N> g = resource_map<N>::block_grid(parent, algorithmic,
                                                    owner_copy_detail::to_index<N>(task.block));
      for (std::int64_t k = 0; k < g.total_extent(); ++k)
        std::apply(
            [&](const auto&... c) {
              body(g.offset + delinearize(k, g.size), output, std::get<I>(views)..., c...);
            },
            copies);
      elements += g.total_extent();
    }
    // A cycle per element touched, and the owner lookups when an index leaves the current block.
    const std::int64_t lookups = (output.lookups() + ... + std::get<I>(views).lookups());
    return elements * static_cast<std::int64_t>(1 + sizeof...(In)) + lookups * owner_lookup_cycles;
  };
  run_tile_program(info, planned.program);
}

template <int N, class Out, class Body, class... Shared, class... In, std::size_t... I>
void run_local_global(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
                      const char* out_name, Body body, const shared_reads<Shared...>& shared,
                      std::index_sequence<I...> seq, const forall_input<N, In>&... inputs) {
  if (const auto where = forall_placement_of(info); where != forall_placement::tile_program)
    return run_local_global_in_place(info, where == forall_placement::ranks_in_place, tiles, out,
                                     out_name, body, shared, seq, inputs...);
  auto planned = plan(info, tiles, out, out_name, seq, inputs...);
  constexpr int first_shared = static_cast<int>(1 + sizeof...(In));
  add_shared(planned.program, shared, first_shared);
  const std::array<extent<N>, sizeof...(In)> algorithmic{
      inputs.field->map().algorithmic_block()...};
  const extent<N> out_algorithmic = out.map().algorithmic_block();
  planned.program.compute = [bindings = planned.bindings, runs = planned.runs, body, algorithmic,
                             out_algorithmic, shared_views = shared.views](
                                int tile, const tile_memory& memory) -> std::int64_t {
    const auto& out_layout = std::get<0>(*bindings).layout;
    const tile_blocks_view<N, Out> output(regions_of<N, Out>(memory(0), out_layout, tile),
                                          out_layout, tile, out_algorithmic);
    const std::tuple<tile_blocks_view<N, const In>...> views{tile_blocks_view<N, const In>(
        regions_of<N, const In>(memory(static_cast<int>(I + 1)),
                                std::get<I + 1>(*bindings).layout, tile),
        std::get<I + 1>(*bindings).layout, tile, algorithmic[I])...};
    const auto copies = std::apply(
        [&](const auto&... v) { return std::make_tuple(shared_copy(v, memory, first_shared)...); },
        shared_views);
    const task_warp_cycles warps;
    for (const forall_task& task : (*runs)[static_cast<std::size_t>(tile)])
      std::apply(
          [&](const auto&... c) {
            body(owner_copy_detail::to_index<N>(task.block), output, std::get<I>(views)..., c...);
          },
          copies);
    // Tasks split into warps cost their pipelines' simulated time (their intrinsics' costs
    // count the blocks they touch). Otherwise a cycle per element of every block the tasks
    // accessed, and a lookup per tile access.
    if (warps.launched())
      return warps.cycles();
    const std::int64_t elements = (output.elements() + ... + std::get<I>(views).elements());
    const std::int64_t lookups = (output.lookups() + ... + std::get<I>(views).lookups());
    return elements + lookups * owner_lookup_cycles;
  };
  run_tile_program(info, planned.program);
}

} // namespace forall_detail

// Full global view: runs `body(i, out_view, in_views...)` for every index of `out`, each
// output algorithmic block on the tile that owns it, after moving the input blocks it needs
// there.
template <int N, class Out, class Body, class... In>
void forall(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
            const char* out_name, Body body, const forall_input<N, In>&... inputs) {
  forall_detail::run_global(info, tiles, out, out_name, std::move(body), shared_reads<>{},
                            std::index_sequence_for<In...>{}, inputs...);
}

// The same with shared read-only structures: `body(i, out_view, in_views..., shared...)`, each
// shared structure the tile's copy (its master's, or received before the compute).
template <int N, class Out, class... Shared, class Body, class... In>
void forall(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
            const char* out_name, const shared_reads<Shared...>& shared, Body body,
            const forall_input<N, In>&... inputs) {
  forall_detail::run_global(info, tiles, out, out_name, std::move(body), shared,
                            std::index_sequence_for<In...>{}, inputs...);
}

// Local-global view: runs `body(b, out_tiles, in_tiles...)` for every algorithmic block `b`
// of `out` on the tile that owns it; `out_tiles(b)` and `in_tiles(m)` are the blocks as
// fields over the tile's local copies (inputs read-only), moved there before the tasks run.
template <int N, class Out, class Body, class... In>
void forall_tiles(const tile_kernel_info& info, int tiles, const tile_blocks<N, Out>& out,
                  const char* out_name, Body body, const forall_input<N, In>&... inputs) {
  forall_detail::run_local_global(info, tiles, out.agile(), out_name, std::move(body),
                                  shared_reads<>{}, std::index_sequence_for<In...>{}, inputs...);
}

template <int N, class Out, class... Shared, class Body, class... In>
void forall_tiles(const tile_kernel_info& info, int tiles, const tile_blocks<N, Out>& out,
                  const char* out_name, const shared_reads<Shared...>& shared, Body body,
                  const forall_input<N, In>&... inputs) {
  forall_detail::run_local_global(info, tiles, out.agile(), out_name, std::move(body), shared,
                                  std::index_sequence_for<In...>{}, inputs...);
}

} // namespace s2p::rt
