#include "passes/plan_owner_copy.h"

#include <set>
#include <tuple>

namespace s2p::passes {

namespace {

template <int N> std::vector<std::int64_t> coords(const index<N>& i) { return {i.v.begin(), i.v.end()}; }

// Calls fn(block coordinates) for every block of `block` size overlapping rectangle `r`.
template <int N, class Fn> void for_each_block(const grid<N>& r, const extent<N>& block, Fn&& fn) {
  index<N> lo, hi;
  for (int d = 0; d < N; ++d) {
    lo[d] = r.offset[d] / block[d];
    hi[d] = (r.offset[d] + r.size[d] - 1) / block[d];
  }
  index<N> b = lo;
  while (true) {
    fn(b);
    int d = N - 1;
    while (d >= 0 && b[d] == hi[d]) b[d] = lo[d], --d;
    if (d < 0) return;
    ++b[d];
  }
}

template <int N> bool inside(const grid<N>& r, const extent<N>& e) {
  for (int d = 0; d < N; ++d)
    if (r.offset[d] < 0 || r.offset[d] + r.size[d] > e[d]) return false;
  return true;
}

// Output algorithmic blocks in task order: segment by segment, row-major inside each.
template <int N> std::vector<Task> output_tasks(const resource_map<N>& output) {
  std::vector<Task> tasks;
  const extent<N> algorithmic = output.algorithmic_block();
  for (const auto& segment : output.segments()) {
    index<N> first, count;
    for (int d = 0; d < N; ++d) {
      first[d] = segment.child.offset[d] / algorithmic[d];
      count[d] = (segment.child.size[d] + algorithmic[d] - 1) / algorithmic[d];
    }
    extent<N> counts;
    for (int d = 0; d < N; ++d) counts[d] = count[d];
    for (std::int64_t k = 0; k < counts.size(); ++k) tasks.push_back({segment.tile, coords(first + delinearize(k, counts))});
  }
  return tasks;
}

} // namespace

template <int N>
OwnerCopyPlan plan_owner_copy(const resource_map<N>& output, const std::vector<InputAccess<N>>& inputs) {
  OwnerCopyPlan plan;
  plan.tasks = output_tasks(output);
  plan.queues.resize(static_cast<std::size_t>(output.tiles()));
  std::set<std::tuple<std::string, std::vector<std::int64_t>, int>> moved;
  const extent<N> algorithmic = output.algorithmic_block();
  for (const Task& task : plan.tasks) {
    plan.queues[static_cast<std::size_t>(task.tile)].push_back(task);
    index<N> b;
    for (int d = 0; d < N; ++d) b[d] = task.block[static_cast<std::size_t>(d)];
    const grid<N> out_block = resource_map<N>::block_grid(output.parent(), algorithmic, b);
    for (const auto& input : inputs) {
      const grid<N> needed = input.index.apply(out_block);
      if (!inside(needed, input.map->parent())) {
        plan.error = "forall reads '" + input.field + "' outside its extent";
        return plan;
      }
      // Remote algorithmic blocks of the input this task reads.
      for_each_block(needed, input.map->algorithmic_block(), [&](const index<N>& ib) {
        const grid<N> g = resource_map<N>::block_grid(input.map->parent(), input.map->algorithmic_block(), ib);
        if (input.map->tile_of(g.offset) != task.tile) ++plan.algorithmic_moves;
      });
      // Memory blocks, moved once per destination.
      for_each_block(needed, input.map->memory_block(), [&](const index<N>& mb) {
        const grid<N> g = resource_map<N>::block_grid(input.map->parent(), input.map->memory_block(), mb);
        const int owner = input.map->tile_of(g.offset);
        if (owner == task.tile || !moved.insert({input.field, coords(mb), task.tile}).second) return;
        const std::int64_t bytes = g.total_extent() * input.element_bytes;
        plan.moves.push_back({input.field, coords(mb), owner, task.tile, bytes});
        plan.bytes += bytes;
      });
    }
  }
  return plan;
}

template <int N>
std::int64_t minimum_block_bytes(const resource_map<N>& output, const std::vector<InputAccess<N>>& inputs) {
  std::set<std::tuple<std::size_t, std::vector<std::int64_t>, int>> needed;
  std::int64_t bytes = 0;
  const extent<N> e = output.parent();
  for (std::int64_t k = 0; k < e.size(); ++k) {
    const index<N> i = delinearize(k, e);
    const int tile = output.tile_of(i);
    for (std::size_t a = 0; a < inputs.size(); ++a) {
      const index<N> j = inputs[a].index.apply(i);
      if (inputs[a].map->tile_of(j) == tile) continue;
      index<N> mb;
      for (int d = 0; d < N; ++d) mb[d] = j[d] / inputs[a].map->memory_block()[d];
      if (needed.insert({a, coords(mb), tile}).second)
        bytes += resource_map<N>::block_grid(inputs[a].map->parent(), inputs[a].map->memory_block(), mb).total_extent() *
                 inputs[a].element_bytes;
    }
  }
  return bytes;
}

template OwnerCopyPlan plan_owner_copy<1>(const resource_map<1>&, const std::vector<InputAccess<1>>&);
template OwnerCopyPlan plan_owner_copy<2>(const resource_map<2>&, const std::vector<InputAccess<2>>&);
template OwnerCopyPlan plan_owner_copy<3>(const resource_map<3>&, const std::vector<InputAccess<3>>&);
template std::int64_t minimum_block_bytes<1>(const resource_map<1>&, const std::vector<InputAccess<1>>&);
template std::int64_t minimum_block_bytes<2>(const resource_map<2>&, const std::vector<InputAccess<2>>&);
template std::int64_t minimum_block_bytes<3>(const resource_map<3>&, const std::vector<InputAccess<3>>&);

} // namespace s2p::passes
