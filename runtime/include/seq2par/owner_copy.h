// <seq2par/owner_copy.h> — the owner-copy protocol for `forall` over agile fields: every
// algorithmic block of the output is computed on the tile that owns it; every input element it
// reads that lives on another tile is brought there first, at memory-block granularity (touching
// one element moves its whole memory block), and a block already moved to a tile is not moved
// again. Inputs are read through index maps (identity, transpose, shifts), so the elements
// an output block needs form a rectangle.
//
// Two views: in the full global view a map takes output element
// indices to input element indices; in the local-global view (`tiles(x)(b)`) it takes output
// algorithmic-block coordinates to input algorithmic-block coordinates, and the task reads
// that whole input block.
//
// The plan becomes the exchange phase of the kernel's schedule and each tile's task list
// (also the work-stealing queues: a tile pops its own queue from the top and steals from
// the bottom of others').
#pragma once

#include <seq2par/distribution.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace s2p {

// Input index = output index with axes permuted, plus an offset:
//   in[d] = out[source_axis[d]] + offset[d]
// or, where source_axis[d] is loop_axis, a range the access covers whatever the output index:
// [offset[d], offset[d] + span[d]) (a loop of the body with constant bounds, span 1 for a fixed
// coordinate), or the whole axis of the field read (span[d] == whole_axis: a loop whose bounds
// are known only when the kernel runs, a coordinate computed from the kernel's values). In the
// global view the maps take output element indices to input element indices; in the
// local-global view (block coordinates) a task reads every block in the range (a GEMM task's
// row of A blocks, At({b[0], k})).
//
// Where source_axis[d] is an axis and span[d] > 0, the coordinate is a window of the index:
// in[d] = out[source_axis[d]] + offset[d] + [0, span[d]) (a body loop over the offsets of a
// convolution or a stencil, Xd[{i[0] + k}]).
//
// A guard restricts which output indices read through the map at all: those with
// guard_lower[a] <= out[a] < guard_upper[a] on every output axis a (the `if` around a
// stencil's reads that keeps them off the boundary). Unguarded axes are unbounded.
//
// A loop coordinate's range may also be bounded by the output index (a triangle's
// `for (k = 0; k < i[0]; ++k)`): where lower_axis[d] is an axis, the loop starts at
// out[lower_axis[d]] + lower_offset[d] at the earliest; where upper_axis[d] is one, it stops
// before out[upper_axis[d]] + upper_offset[d]. These narrow the range [offset, offset + span)
// (or the whole axis), so the image of a rectangle is still a rectangle.
//
// An index coordinate may be scaled: in[d] = scale[d] * out[source_axis[d]] + offset[d] (+ the
// window), a strided read (`Xd[{2 * i[0] + k}]`, a restriction or a stride-2 convolution).
// The image of a rectangle is then the rectangle around the strided elements (the gaps
// between them included, which memory blocks of the strided elements usually hold anyway).
template <int N> struct index_map {
  static constexpr int loop_axis = -1;
  static constexpr std::int64_t whole_axis = -1;
  static constexpr std::int64_t unbounded = std::int64_t{1} << 62;
  static constexpr std::array<std::int64_t, N> filled(std::int64_t v) {
    std::array<std::int64_t, N> a{};
    a.fill(v);
    return a;
  }
  std::array<int, N> source_axis{};
  std::array<std::int64_t, N> offset{};
  std::array<std::int64_t, N> span{};
  std::array<std::int64_t, N> guard_lower = filled(-unbounded);
  std::array<std::int64_t, N> guard_upper = filled(unbounded);
  std::array<int, N> lower_axis = filled_axes(loop_axis);
  std::array<std::int64_t, N> lower_offset{};
  std::array<int, N> upper_axis = filled_axes(loop_axis);
  std::array<std::int64_t, N> upper_offset{};
  std::array<std::int64_t, N> scale = filled(1);

  static constexpr std::array<int, N> filled_axes(int axis) {
    std::array<int, N> a{};
    a.fill(axis);
    return a;
  }
  // This map with loop coordinates' ranges bounded by the output index, as above (what a
  // launch writes after the map's aggregate initializer).
  index_map bounded_by_index(const std::array<int, N>& lower_axes,
                             const std::array<std::int64_t, N>& lower_offsets,
                             const std::array<int, N>& upper_axes,
                             const std::array<std::int64_t, N>& upper_offsets) const {
    index_map m = *this;
    m.lower_axis = lower_axes;
    m.lower_offset = lower_offsets;
    m.upper_axis = upper_axes;
    m.upper_offset = upper_offsets;
    return m;
  }

  // This map with index coordinates scaled (what a launch writes for `2 * i[0]`).
  index_map scaled(const std::array<std::int64_t, N>& factors) const {
    index_map m = *this;
    m.scale = factors;
    return m;
  }

  static index_map identity() {
    index_map m;
    for (int d = 0; d < N; ++d)
      m.source_axis[static_cast<std::size_t>(d)] = d;
    return m;
  }
  static index_map transpose() {
    static_assert(N == 2, "transpose is a rank-2 map");
    index_map m;
    m.source_axis = {1, 0};
    return m;
  }
  // Whether some coordinate is a range or a window (the image of one index is then more than
  // one element).
  bool has_ranges() const {
    for (std::size_t d = 0; d < N; ++d)
      if (source_axis[d] == loop_axis || span[d] > 0)
        return true;
    return false;
  }
  // The image of a rectangle of the output (element indices, global view) or of its blocks
  // (block coordinates, local-global view): a rectangle, since axes are only permuted and
  // shifted and ranges are intervals whose ends move with the index. `whole` is the input's
  // extent in the same units (elements, or algorithmic blocks).
  grid<N> apply(const grid<N>& unguarded, const extent<N>& whole) const {
    grid<N> out;
    grid<N> g = unguarded;
    for (int a = 0; a < N; ++a) {
      const auto k = static_cast<std::size_t>(a);
      const std::int64_t lo = std::max(g.offset[a], guard_lower[k]);
      const std::int64_t hi = std::min(g.offset[a] + g.size[a], guard_upper[k]);
      if (hi <= lo)
        return out; // no index of `g` reads through this map: nothing
      g.offset[a] = lo;
      g.size[a] = hi - lo;
    }
    for (int d = 0; d < N; ++d) {
      const auto k = static_cast<std::size_t>(d);
      const int s = source_axis[k];
      if (s != loop_axis) {
        // The first and the last index of `g` along s, scaled (a negative scale reverses them).
        const std::int64_t first = scale[k] * g.offset[s];
        const std::int64_t last = scale[k] * (g.offset[s] + g.size[s] - 1);
        out.offset[d] = std::min(first, last) + offset[k];
        out.size[d] = std::max(first, last) - std::min(first, last) + 1 +
                      (span[k] > 0 ? span[k] - 1 : 0); // a window widens the image
      } else if (span[k] == whole_axis) {
        out.offset[d] = 0;
        out.size[d] = whole[d];
      } else {
        out.offset[d] = offset[k];
        out.size[d] = span[k];
      }
      if (s == loop_axis && !bound_by_index(d, g, out))
        return {}; // the range is empty at every index of `g`: nothing
    }
    return out;
  }
  // Narrows loop coordinate d of `image` to the ends the indices of `g` give it (the union of
  // their ranges); false when every one of them is empty.
  bool bound_by_index(int d, const grid<N>& g, grid<N>& image) const {
    const auto k = static_cast<std::size_t>(d);
    std::int64_t lo = image.offset[d], hi = image.offset[d] + image.size[d];
    if (const int a = lower_axis[k]; a != loop_axis)
      lo = std::max(lo, g.offset[a] + lower_offset[k]); // the earliest start: the least index
    if (const int a = upper_axis[k]; a != loop_axis)
      hi = std::min(hi, g.offset[a] + g.size[a] - 1 + upper_offset[k]); // the greatest index
    if (hi <= lo)
      return false;
    image.offset[d] = lo;
    image.size[d] = hi - lo;
    return true;
  }
  // The blocks one task (output block `b`) reads through this map: one block, or a row,
  // column or box of them along loop axes (`counts`: the input's algorithmic blocks).
  grid<N> apply_blocks(const index<N>& b, const extent<N>& counts) const {
    grid<N> one;
    for (int d = 0; d < N; ++d)
      one.size[d] = 1;
    one.offset = b;
    return apply(one, counts);
  }
};

// A coordinate of a read that the kernel computes (its loop variable plus a constant), kept in
// the field's axis [0, extent) for planning: the body reads it only where its `if`s let it
// (`if (k > 0) ... Xd[{k - 1}]`), and an element outside the field is one it never reads, so
// the launch plans the nearest one instead of refusing the forall.
inline std::int64_t within_extent(std::int64_t coordinate, std::int64_t extent) {
  return std::clamp<std::int64_t>(coordinate, 0, std::max<std::int64_t>(extent - 1, 0));
}

// How many elements a read through a body loop over [lower, upper) is planned for, on an axis of
// `extent` elements, from within_extent(lower, extent): the loop's elements inside the field,
// and at least one (a loop that runs nowhere inside the field plans an element it never reads
// rather than none).
inline std::int64_t range_count(std::int64_t lower, std::int64_t upper, std::int64_t extent) {
  return std::max<std::int64_t>(std::min(upper, extent) - within_extent(lower, extent), 1);
}

enum class access_view { global, local_global };

template <int N> struct input_access {
  std::string field;
  const resource_map<N>* map = nullptr;
  index_map<N> index = index_map<N>::identity();
  std::int64_t element_bytes = 8;
  access_view view = access_view::global; // local_global: `index` maps block coordinates
};

struct block_move {
  std::string field;
  std::vector<std::int64_t> block; // memory-block coordinates in the input
  int from_tile = 0;
  int to_tile = 0;
  std::int64_t bytes = 0;
};

struct forall_task {
  int tile = 0;
  std::vector<std::int64_t> block; // algorithmic-block coordinates in the output
};

struct owner_copy_plan {
  std::vector<forall_task> tasks;               // in segment order, row-major inside a segment
  std::vector<std::vector<forall_task>> queues; // per tile, the same order (work-stealing queues)
  std::vector<block_move> moves;          // each (field, memory block, destination) once
  std::int64_t algorithmic_moves = 0;    // (task, remote input algorithmic block) pairs
  std::int64_t bytes = 0;                // bytes the moves carry
  std::string error;                     // non-empty if an access leaves its field
};

// The bytes any owner-computes plan must move at memory-block granularity, found by
// visiting every output element (an independent check of plan_owner_copy, for tests and
// benchmarks; cost grows with the number of elements).

namespace owner_copy_detail {

template <int N> std::vector<std::int64_t> coords(const index<N>& i) {
  return {i.v.begin(), i.v.end()};
}
// The inverse of coords().
template <int N> index<N> to_index(const std::vector<std::int64_t>& v) {
  index<N> i;
  for (int d = 0; d < N; ++d)
    i[d] = v[static_cast<std::size_t>(d)];
  return i;
}

// Calls fn(block coordinates) for every block of `block` size overlapping rectangle `r`.
template <int N, class Fn> void for_each_block(const grid<N>& r, const extent<N>& block, Fn&& fn) {
  if (r.total_extent() <= 0)
    return;
  index<N> lo, hi;
  for (int d = 0; d < N; ++d) {
    lo[d] = r.offset[d] / block[d];
    hi[d] = (r.offset[d] + r.size[d] - 1) / block[d];
  }
  index<N> b = lo;
  while (true) {
    fn(b);
    int d = N - 1;
    while (d >= 0 && b[d] == hi[d])
      b[d] = lo[d], --d;
    if (d < 0)
      return;
    ++b[d];
  }
}

template <int N> std::string describe(const index<N>& i) {
  std::string text = "(";
  for (int d = 0; d < N; ++d)
    text += (d ? ", " : "") + std::to_string(i[d]);
  return text + ")";
}

template <int N> bool inside(const grid<N>& r, const extent<N>& e) {
  for (int d = 0; d < N; ++d)
    if (r.offset[d] < 0 || r.offset[d] + r.size[d] > e[d])
      return false;
  return true;
}

// Output algorithmic blocks in task order: segment by segment, row-major inside each.
template <int N> std::vector<forall_task> output_tasks(const resource_map<N>& output) {
  std::vector<forall_task> tasks;
  const extent<N> algorithmic = output.algorithmic_block();
  for (const auto& segment : output.segments()) {
    index<N> first, count;
    for (int d = 0; d < N; ++d) {
      first[d] = segment.child.offset[d] / algorithmic[d];
      count[d] = (segment.child.size[d] + algorithmic[d] - 1) / algorithmic[d];
    }
    extent<N> counts;
    for (int d = 0; d < N; ++d)
      counts[d] = count[d];
    for (std::int64_t k = 0; k < counts.size(); ++k)
      tasks.push_back({segment.tile, owner_copy_detail::coords(first + delinearize(k, counts))});
  }
  return tasks;
}

template <int N> extent<N> block_counts_of(const input_access<N>& input) {
  return resource_map<N>::block_counts(input.map->parent(), input.map->algorithmic_block());
}

// The elements of a box of `input`'s algorithmic blocks (block coordinates), false when a
// block of it lies outside the field. An empty box (a task its guard keeps from reading
// through this map) needs nothing.
template <int N>
bool blocks_region(const input_access<N>& input, const grid<N>& blocks, grid<N>& needed) {
  if (blocks.total_extent() <= 0) {
    needed = grid<N>{};
    return true;
  }
  const extent<N> counts = block_counts_of(input);
  index<N> last = blocks.offset;
  for (int d = 0; d < N; ++d)
    last[d] += blocks.size[d] - 1;
  if (!counts.contains(blocks.offset) || !counts.contains(last))
    return false;
  const extent<N> algorithmic = input.map->algorithmic_block();
  const grid<N> first = resource_map<N>::block_grid(input.map->parent(), algorithmic, blocks.offset);
  const grid<N> end = resource_map<N>::block_grid(input.map->parent(), algorithmic, last);
  needed.offset = first.offset;
  for (int d = 0; d < N; ++d)
    needed.size[d] = end.offset[d] + end.size[d] - first.offset[d];
  return true;
}

// The input elements output algorithmic block `b` (grid `out_block`) reads through `input`,
// false when the access leaves the input.
template <int N>
bool needed_region(const input_access<N>& input, const index<N>& b, const grid<N>& out_block,
                   grid<N>& needed) {
  if (input.view == access_view::global) {
    needed = input.index.apply(out_block, input.map->parent());
    return inside(needed, input.map->parent());
  }
  return blocks_region(input, input.index.apply_blocks(b, block_counts_of(input)), needed);
}

// Calls fn(move) for every memory block of `input` overlapping `needed` that lives on a
// tile other than `tile`, with the move that would bring it there.
template <int N, class Fn>
void for_each_remote_memory_block(const input_access<N>& input, const grid<N>& needed, int tile,
                                  Fn&& fn) {
  for_each_block(needed, input.map->memory_block(), [&](const index<N>& mb) {
    const grid<N> g =
        resource_map<N>::block_grid(input.map->parent(), input.map->memory_block(), mb);
    const int owner = input.map->tile_of(g.offset);
    if (owner != tile)
      fn(block_move{input.field, coords(mb), owner, tile, g.total_extent() * input.element_bytes});
  });
}

// Why output block `b` cannot read `input` (the plan's refusal, without "seq2par: ").
template <int N> std::string outside_message(const input_access<N>& input, const index<N>& b) {
  return input.view == access_view::global
             ? "forall reads '" + input.field + "' outside its extent"
             : "forall reads a block of '" + input.field +
                   "' outside its algorithmic blocks (output block " + describe(b) + ")";
}

} // namespace owner_copy_detail

// The refusal plan_owner_copy makes when a task would read outside an input, without
// planning anything: what a forall that runs in place on shared memory checks once, before
// any task (the element accesses of its body then stay inside the fields). Empty if none.
// A global-view read's footprint over all tasks is the map's image of the whole output; a
// block read's is checked block by block, as the plan does.
template <int N>
std::string footprint_error(const resource_map<N>& output,
                            const std::vector<input_access<N>>& inputs) {
  const extent<N> algorithmic = output.algorithmic_block();
  const extent<N> counts = resource_map<N>::block_counts(output.parent(), algorithmic);
  for (const auto& input : inputs) {
    grid<N> needed;
    if (input.view == access_view::global) {
      if (!owner_copy_detail::needed_region(input, index<N>{}, grid<N>{output.parent(), index<N>{}},
                                            needed))
        return owner_copy_detail::outside_message(input, index<N>{});
      continue;
    }
    for (std::int64_t k = 0; k < counts.size(); ++k) {
      const index<N> b = delinearize(k, counts);
      if (!owner_copy_detail::needed_region(
              input, b, resource_map<N>::block_grid(output.parent(), algorithmic, b), needed))
        return owner_copy_detail::outside_message(input, b);
    }
  }
  return {};
}

template <int N>
owner_copy_plan plan_owner_copy(const resource_map<N>& output,
                                const std::vector<input_access<N>>& inputs) {
  owner_copy_plan plan;
  plan.tasks = owner_copy_detail::output_tasks(output);
  plan.queues.resize(static_cast<std::size_t>(output.tiles()));
  std::set<std::tuple<std::string, std::vector<std::int64_t>, int>> moved;
  const extent<N> algorithmic = output.algorithmic_block();
  for (const forall_task& task : plan.tasks) {
    plan.queues[static_cast<std::size_t>(task.tile)].push_back(task);
    index<N> b;
    for (int d = 0; d < N; ++d)
      b[d] = task.block[static_cast<std::size_t>(d)];
    const grid<N> out_block = resource_map<N>::block_grid(output.parent(), algorithmic, b);
    for (const auto& input : inputs) {
      grid<N> needed;
      if (!owner_copy_detail::needed_region(input, b, out_block, needed)) {
        plan.error = owner_copy_detail::outside_message(input, b);
        return plan;
      }
      // Remote algorithmic blocks of the input this task reads.
      owner_copy_detail::for_each_block(
          needed, input.map->algorithmic_block(), [&](const index<N>& ib) {
            const grid<N> g = resource_map<N>::block_grid(input.map->parent(),
                                                          input.map->algorithmic_block(), ib);
            if (input.map->tile_of(g.offset) != task.tile)
              ++plan.algorithmic_moves;
          });
      // Memory blocks, moved once per destination.
      owner_copy_detail::for_each_remote_memory_block(input, needed, task.tile, [&](block_move m) {
        if (!moved.insert({m.field, m.block, m.to_tile}).second)
          return;
        plan.bytes += m.bytes;
        plan.moves.push_back(std::move(m));
      });
    }
  }
  return plan;
}

template <int N>
std::int64_t minimum_block_bytes(const resource_map<N>& output,
                                 const std::vector<input_access<N>>& inputs) {
  // Keyed by field: two reads of one field (Ad[i - 1], Ad[{k, i[0]}]) that need the same
  // memory block on a tile need it once, as the plan moves it once.
  std::set<std::tuple<std::string, std::vector<std::int64_t>, int>> needed;
  std::int64_t bytes = 0;
  auto touch = [&](std::size_t a, const index<N>& j, int tile) {
    if (inputs[a].map->tile_of(j) == tile)
      return;
    index<N> mb;
    for (int d = 0; d < N; ++d)
      mb[d] = j[d] / inputs[a].map->memory_block()[d];
    if (needed.insert({inputs[a].field, owner_copy_detail::coords(mb), tile}).second)
      bytes +=
          resource_map<N>::block_grid(inputs[a].map->parent(), inputs[a].map->memory_block(), mb)
              .total_extent() *
          inputs[a].element_bytes;
  };
  // A read through a map with ranges covers the same rectangle from many output elements (a
  // GEMM row band): each (input, tile, rectangle) is visited once, a memory block at a time.
  std::set<std::tuple<std::size_t, int, std::vector<std::int64_t>, std::vector<std::int64_t>>>
      ranges_seen;
  auto touch_range = [&](std::size_t a, const grid<N>& r, int tile) {
    if (r.total_extent() <= 0 || !owner_copy_detail::inside(r, inputs[a].map->parent()) ||
        !ranges_seen
             .insert({a, tile, owner_copy_detail::coords(r.offset),
                      std::vector<std::int64_t>(r.size.v.begin(), r.size.v.end())})
             .second)
      return; // outside: plan_owner_copy reports it
    owner_copy_detail::for_each_block(r, inputs[a].map->memory_block(), [&](const index<N>& mb) {
      index<N> first;
      for (int d = 0; d < N; ++d)
        first[d] = mb[d] * inputs[a].map->memory_block()[d];
      touch(a, first, tile);
    });
  };
  const extent<N> e = output.parent();
  for (std::int64_t k = 0; k < e.size(); ++k) {
    const index<N> i = delinearize(k, e);
    const int tile = output.tile_of(i);
    for (std::size_t a = 0; a < inputs.size(); ++a) {
      if (inputs[a].view == access_view::global) {
        grid<N> one;
        for (int d = 0; d < N; ++d)
          one.size[d] = 1;
        one.offset = i;
        const grid<N> r = inputs[a].index.apply(one, inputs[a].map->parent());
        if (inputs[a].index.has_ranges())
          touch_range(a, r, tile);
        else if (r.total_extent() > 0) // guarded off: reads nothing
          touch(a, r.offset, tile);
        continue;
      }
      // Local-global view: the first element of each output block reads its whole input block.
      index<N> b;
      bool first = true;
      for (int d = 0; d < N; ++d) {
        b[d] = i[d] / output.algorithmic_block()[d];
        first = first && i[d] % output.algorithmic_block()[d] == 0;
      }
      if (!first)
        continue;
      grid<N> g;
      if (!owner_copy_detail::blocks_region(
              inputs[a],
              inputs[a].index.apply_blocks(b, owner_copy_detail::block_counts_of(inputs[a])), g))
        continue; // plan_owner_copy reports it
      for (std::int64_t m = 0; m < g.total_extent(); ++m)
        touch(a, g.offset + delinearize(m, g.size), tile);
    }
  }
  return bytes;
}

} // namespace s2p
