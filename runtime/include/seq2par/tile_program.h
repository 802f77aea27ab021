// <seq2par/tile_program.h> — what generated multi-tile code runs: `forall` over agile
// fields with owner-copy (seed 002) as one image for every tile (seed 004).
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

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace s2p::rt {

struct tile_kernel_info;

// --- the type-erased program the library runs --------------------------------------------

struct tile_bytes {
  std::byte* data;
  std::size_t size;
};
using tile_memory = std::function<tile_bytes(int field)>;

struct tile_field {
  std::string name;
  std::string element_type; // "f32", "f64", ...
  std::vector<std::int64_t> bytes_per_tile;
};

struct tile_move {
  int field;
  int from_tile;
  int to_tile;
  std::int64_t from_offset; // bytes, in the field's tile buffers
  std::int64_t to_offset;
  std::int64_t bytes;
};

struct tile_program {
  std::vector<tile_field> fields;
  std::vector<tile_move> moves;
  std::function<void(int tile, const tile_memory&)> load;            // owned blocks in
  std::function<std::int64_t(int tile, const tile_memory&)> compute; // returns cycles
  std::function<void(int tile, const tile_memory&)> store;           // owned output blocks out
  std::int64_t planned_bytes = 0;
  std::int64_t minimum_bytes = -1; // -1: not computed (field too large to scan)
};

void run_tile_program(const tile_kernel_info& info, const tile_program& program);

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
  }

  // Adds memory block `b` (block coordinates) to `tile`, once.
  void add(int tile, const index<N>& b) {
    const std::int64_t id = linearize(b, counts_);
    auto& table = offsets_[static_cast<std::size_t>(tile)];
    if (table.count(id))
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
};

// A tile's view of one field: global index -> its local copy. Only blocks the plan put on
// the tile are there; anything else is a planning bug and throws.
template <int N, class T> class tile_view {
public:
  tile_view(T* base, const block_layout<N>& layout, int tile)
      : base_(base), layout_(&layout), table_(&layout.table(tile)) {}

  T& operator[](const index<N>& i) const {
    index<N> b, local;
    for (int d = 0; d < N; ++d) {
      b[d] = i[d] / layout_->block()[d];
      local[d] = i[d] - b[d] * layout_->block()[d];
    }
    const auto found = layout_->parent().contains(i) ? table_->find(linearize(b, layout_->counts()))
                                                     : table_->end();
    if (found == table_->end())
      throw std::logic_error("s2p runtime: a forall read an element its tile was not given "
                             "(owner-copy plan incomplete)");
    return base_[found->second + linearize(local, layout_->block_grid(b).size)];
  }

private:
  T* base_;
  const block_layout<N>* layout_;
  const std::unordered_map<std::int64_t, std::int64_t>* table_;
};

// --- forall ---------------------------------------------------------------------------------

template <class T> constexpr const char* element_type_name();

// An agile field a forall reads, with the index maps it is read through.
template <int N, class T> struct forall_input {
  const agile_field<N, T>* field;
  const char* name;
  std::vector<IndexMap<N>> maps;
};
template <int N, class T>
forall_input<N, T> reads(const agile_field<N, T>& field, const char* name,
                         std::vector<IndexMap<N>> maps) {
  return {&field, name, std::move(maps)};
}

namespace forall_detail {

// A field's tile buffers: its layout and how to copy owned blocks in and out.
template <int N, class T> struct binding {
  binding(const agile_field<N, T>& a, int tiles, std::string n)
      : global(a.data()), layout(a.map(), tiles), name(std::move(n)) {}
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

template <int N, class Out, class Body, class... In, std::size_t... I>
void run(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
         const char* out_name, Body body, std::index_sequence<I...>,
         const forall_input<N, In>&... inputs) {
  constexpr std::size_t fields = 1 + sizeof...(In);
  if (out.map().tiles() != tiles)
    throw std::invalid_argument("seq2par: the output of a forall is distributed over " +
                                std::to_string(out.map().tiles()) + " tiles but the kernel spans " +
                                std::to_string(tiles));
  for (const void* data : {static_cast<const void*>(inputs.field->data().data())...})
    if (data == static_cast<const void*>(out.data().data()))
      throw std::invalid_argument(
          "seq2par: a forall reads a field that shares memory with the field it writes");

  // The owner-copy plan.
  std::vector<InputAccess<N>> accesses;
  (
      [&] {
        for (const auto& m : inputs.maps)
          accesses.push_back(
              {inputs.name, &inputs.field->map(), m, static_cast<std::int64_t>(sizeof(In))});
      }(),
      ...);
  auto plan = std::make_shared<const OwnerCopyPlan>(plan_owner_copy<N>(out.map(), accesses));
  if (!plan->error.empty())
    throw std::invalid_argument("seq2par: " + plan->error);

  // Each field's tile buffers: owned blocks, then the blocks moved in.
  auto bindings = std::make_shared<std::tuple<binding<N, Out>, binding<N, In>...>>(
      binding<N, Out>(out, tiles, out_name), binding<N, In>(*inputs.field, tiles, inputs.name)...);
  const std::array<block_layout<N>*, fields> layouts{&std::get<0>(*bindings).layout,
                                                     &std::get<I + 1>(*bindings).layout...};
  const std::array<std::string, fields> names{out_name, inputs.name...};
  const std::array<std::size_t, fields> sizes{sizeof(Out), sizeof(In)...};
  const std::array<const char*, fields> types{element_type_name<Out>(), element_type_name<In>()...};
  auto field_of = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin() + 1, names.end(), name) -
                                    names.begin());
  };
  auto block_of = [](const BlockMove& move) {
    index<N> b;
    for (int d = 0; d < N; ++d)
      b[d] = move.block[static_cast<std::size_t>(d)];
    return b;
  };
  for (const auto& move : plan->moves)
    layouts[field_of(move.field)]->add(move.to_tile, block_of(move));

  tile_program program;
  for (std::size_t f = 0; f < fields; ++f) {
    tile_field tf{names[f], types[f], {}};
    for (int t = 0; t < tiles; ++t)
      tf.bytes_per_tile.push_back(layouts[f]->elements(t) * static_cast<std::int64_t>(sizes[f]));
    program.fields.push_back(std::move(tf));
  }
  for (const auto& move : plan->moves) {
    const std::size_t f = field_of(move.field);
    const auto esize = static_cast<std::int64_t>(sizes[f]);
    program.moves.push_back({static_cast<int>(f), move.from_tile, move.to_tile,
                             layouts[f]->offset(move.from_tile, block_of(move)) * esize,
                             layouts[f]->offset(move.to_tile, block_of(move)) * esize, move.bytes});
  }
  program.planned_bytes = plan->bytes;
  if (out.extent().size() <= (std::int64_t{1} << 22))
    program.minimum_bytes = minimum_block_bytes<N>(out.map(), accesses);

  program.load = [bindings](int tile, const tile_memory& memory) {
    std::get<0>(*bindings).copy(tile, memory(0).data, true);
    (std::get<I + 1>(*bindings).copy(tile, memory(static_cast<int>(I + 1)).data, true), ...);
  };
  program.store = [bindings](int tile, const tile_memory& memory) {
    std::get<0>(*bindings).copy(tile, memory(0).data, false); // only the output goes back
  };
  const extent<N> parent = out.map().parent(), algorithmic = out.map().algorithmic_block();
  program.compute = [bindings, plan, body, parent,
                     algorithmic](int tile, const tile_memory& memory) -> std::int64_t {
    const tile_view<N, Out> output(reinterpret_cast<Out*>(memory(0).data),
                                   std::get<0>(*bindings).layout, tile);
    const std::tuple<tile_view<N, In>...> views{
        tile_view<N, In>(reinterpret_cast<In*>(memory(static_cast<int>(I + 1)).data),
                         std::get<I + 1>(*bindings).layout, tile)...};
    std::int64_t elements = 0;
    for (const Task& task : plan->queues[static_cast<std::size_t>(tile)]) {
      index<N> blk;
      for (int d = 0; d < N; ++d)
        blk[d] = task.block[static_cast<std::size_t>(d)];
      const grid<N> g = resource_map<N>::block_grid(parent, algorithmic, blk);
      for (std::int64_t k = 0; k < g.total_extent(); ++k)
        body(g.offset + delinearize(k, g.size), output, std::get<I>(views)...);
      elements += g.total_extent();
    }
    return elements * static_cast<std::int64_t>(1 + sizeof...(In)); // one cycle per element touched
  };
  run_tile_program(info, program);
}

} // namespace forall_detail

// Runs `body(i, out_view, in_views...)` for every index of `out`, each output algorithmic
// block on the tile that owns it, after moving the input blocks it needs there.
template <int N, class Out, class Body, class... In>
void forall(const tile_kernel_info& info, int tiles, const agile_field<N, Out>& out,
            const char* out_name, Body body, const forall_input<N, In>&... inputs) {
  forall_detail::run(info, tiles, out, out_name, std::move(body), std::index_sequence_for<In...>{},
                     inputs...);
}

} // namespace s2p::rt
