// <seq2par/work_stealing.h> — optional work stealing for owner-copy foralls: each
// tile pops its own task queue from the top; a tile whose queue is empty steals the task at
// the bottom of another tile's queue, fetches the input blocks it lacks, computes the
// output block and sends it back to the owner.
//
// The decisions are made when the forall is planned, against the compute model and the
// fabric's transfer rate (both known; the simulator is deterministic): the tile that would
// run dry first steals the bottom task of the tile that would finish last, as long as the
// whole forall -- exchange, tasks, then the stolen results going home -- gets shorter under
// the BSP cost model. The result is a fixed assignment, so the exchange stays
// time-deterministic and both backends compute the same thing.
//
// Any task can be stolen. Its result goes back as one move per contiguous run of its output
// memory block's row-major storage (contiguous_runs): a single move when the output block is
// one range of the memory block (it spans the memory block's full width in every later
// axis), one per run otherwise. Each run holds the task's elements only, so none overwrites
// the owner's other work.
//
// The same runs also go to the thief before the tasks, holding the output's values as the
// forall found them: a body may read its output at its own index (`y[i] = y[i] * 0.5f + x[i]`,
// `y[j] += ...` in a block task, an `inout` block of a composed task), and the launch is not
// told which bodies do, so every stolen task starts from its block's current values, as it
// would on its owner. The cost model counts that fetch like the input blocks a thief lacks.
#pragma once

#include <seq2par/owner_copy.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <tuple>
#include <vector>

namespace s2p {

struct steal_costs {
  std::int64_t bytes_per_cycle = 8;          // a tile's exchange rate, each direction
  std::int64_t cycles_per_field_element = 1; // compute model: one cycle per element per field
  // Tiles per chip (0: all on one). Steals stay on a chip: transfers between chips go
  // through the XBs, which pace them, so they are neither cheap nor time-deterministic.
  std::int64_t tiles_per_chip = 0;
  // The barrier before the superstep that sends stolen results home (paid once, if any).
  std::int64_t returns_barrier_cycles = 150;
  // The original stealing protocol as it stands: an idle tile steals whenever it would finish the task
  // before its owner would reach it, whatever moving the data costs (and across chips).
  bool free_transfers = false;
  // The thief gets the stolen task's output values first (the body may read its output at its
  // own index). Off only when seq2par proved the body never reads it
  // (tile_kernel_info::output_write_only): then the output only goes home.
  bool fetch_output = true;
};

// A stolen task's output block going back to its owner: as many contiguous runs of its
// memory block's row-major storage as it takes (one when the block is a range of it). The
// same runs go from the owner to the thief before the tasks (the output's current values).
struct task_return {
  struct storage_run {
    std::int64_t offset = 0; // elements, in the memory block
    std::int64_t elements = 0;
  };
  std::vector<std::int64_t> block;        // output algorithmic-block coordinates
  std::vector<std::int64_t> memory_block; // the output memory block holding it
  std::vector<storage_run> runs;
  int from_tile = 0; // the thief
  int to_tile = 0;   // the owner
};

struct steal_result {
  std::vector<std::vector<forall_task>> runs; // per tile, the tasks it executes, in order
  std::vector<task_return> returns;
  std::vector<block_move> extra_moves; // input blocks moved to thieves (each once per tile)
  std::int64_t stolen = 0;
};

namespace work_stealing_detail {

// Algorithmic block `g` inside memory block `m` as contiguous runs of m's row-major
// storage: axes after the last one where g is narrower than m are whole, so a run spans
// them and g's extent on that axis; the axes before it enumerate the runs.
template <int N>
std::vector<task_return::storage_run> contiguous_runs(const grid<N>& g, const grid<N>& m) {
  int last_partial = -1;
  for (int d = N - 1; d >= 0 && last_partial < 0; --d)
    if (g.size[d] != m.size[d])
      last_partial = d;
  std::array<std::int64_t, N> stride{};
  std::int64_t run = 1, next_stride = 1;
  for (int d = N - 1; d >= 0; --d) {
    stride[static_cast<std::size_t>(d)] = next_stride;
    next_stride *= m.size[d];
    if (d >= std::max(last_partial, 0))
      run *= g.size[d];
  }
  std::int64_t base = 0;
  for (int d = 0; d < N; ++d)
    base += (g.offset[d] - m.offset[d]) * stride[static_cast<std::size_t>(d)];
  if (last_partial <= 0)
    return {{base, last_partial < 0 ? g.total_extent() : run}};
  // One run per index of the axes before `last_partial`, in row-major order.
  std::vector<task_return::storage_run> runs;
  index<N> at{};
  while (true) {
    std::int64_t offset = base;
    for (int d = 0; d < last_partial; ++d)
      offset += at[d] * stride[static_cast<std::size_t>(d)];
    runs.push_back({offset, run});
    int d = last_partial - 1;
    while (d >= 0 && ++at[d] == g.size[d])
      at[d] = 0, --d;
    if (d < 0)
      return runs;
  }
}

// One forall's stealing: the tiles' queues and loads under the BSP cost of the whole forall
// (a tile computes once its own sends and receives are over, one port each way; all tiles
// meet at a barrier; then stolen results go home), and the steals made so far.
template <int N> class stealer {
public:
  stealer(const owner_copy_plan& plan, const resource_map<N>& output,
          const std::vector<input_access<N>>& inputs, std::int64_t output_element_bytes,
          const steal_costs& costs)
      : output_(output), inputs_(inputs), output_element_bytes_(output_element_bytes),
        costs_(costs), tiles_(plan.queues.size()), load_(tiles_), queue_(tiles_),
        stolen_by_(tiles_) {
    for (const auto& m : plan.moves) {
      held_.insert({m.field, m.block, m.to_tile});
      load_[static_cast<std::size_t>(m.to_tile)].in += m.bytes;
      load_[static_cast<std::size_t>(m.to_tile)].senders.insert(static_cast<std::size_t>(m.from_tile));
      load_[static_cast<std::size_t>(m.from_tile)].out += m.bytes;
    }
    for (std::size_t t = 0; t < tiles_; ++t)
      for (const forall_task& task : plan.queues[t]) {
        queue_[t].push_back(task);
        load_[t].work += compute_cost(task);
      }
    result_.runs.resize(tiles_);
  }

  // Steals while the forall gets shorter, then each tile's tasks: its own first.
  steal_result run() {
    while (steal_one()) {
    }
    for (std::size_t t = 0; t < tiles_; ++t) {
      result_.runs[t].assign(queue_[t].begin(), queue_[t].end());
      result_.runs[t].insert(result_.runs[t].end(), stolen_by_[t].begin(), stolen_by_[t].end());
    }
    return std::move(result_);
  }

private:
  struct tile_load {
    std::int64_t in = 0, out = 0;                 // exchange bytes before the tasks
    std::int64_t work = 0;                        // compute cycles of the tasks it runs
    std::int64_t returns_in = 0, returns_out = 0; // result bytes after the tasks
    std::set<std::size_t> senders;                // tiles it receives from before the tasks
  };

  std::int64_t transfer(std::int64_t bytes) const {
    const std::int64_t rate = std::max<std::int64_t>(1, costs_.bytes_per_cycle);
    return costs_.free_transfers ? 0 : (bytes + rate - 1) / rate;
  }
  grid<N> task_grid(const forall_task& t) const {
    return resource_map<N>::block_grid(output_.parent(), output_.algorithmic_block(),
                                       owner_copy_detail::to_index<N>(t.block));
  }
  std::int64_t compute_cost(const forall_task& t) const {
    return task_grid(t).total_extent() * static_cast<std::int64_t>(1 + inputs_.size()) *
           costs_.cycles_per_field_element;
  }
  // A tile's exchange is over when its own ports are done and so are those of the tiles
  // sending to it (a busy sender delivers late).
  std::int64_t ports(std::size_t t) const { return transfer(std::max(load_[t].in, load_[t].out)); }
  std::int64_t finish(std::size_t t) const {
    std::int64_t start = ports(t);
    for (const std::size_t s : load_[t].senders)
      start = std::max(start, ports(s));
    return start + load_[t].work;
  }
  std::int64_t makespan() const {
    std::int64_t tasks = 0, returns = 0;
    for (std::size_t t = 0; t < tiles_; ++t) {
      tasks = std::max(tasks, finish(t));
      returns = std::max(returns, transfer(std::max(load_[t].returns_in, load_[t].returns_out)));
    }
    return tasks + returns +
           (returns > 0 && !costs_.free_transfers ? costs_.returns_barrier_cycles : 0);
  }
  std::int64_t chip(std::size_t t) const {
    return costs_.tiles_per_chip > 0 && !costs_.free_transfers
               ? static_cast<std::int64_t>(t) / costs_.tiles_per_chip
               : 0;
  }
  // The input memory blocks `task` needs on `thief` that it does not hold yet.
  std::vector<block_move> missing_inputs(const forall_task& task, int thief) const {
    std::vector<block_move> moves;
    std::set<std::tuple<std::string, std::vector<std::int64_t>>> seen;
    const grid<N> out_block = task_grid(task);
    for (const auto& input : inputs_) {
      grid<N> needed;
      if (!owner_copy_detail::needed_region(input, owner_copy_detail::to_index<N>(task.block),
                                            out_block, needed))
        continue; // the plan already reported it
      owner_copy_detail::for_each_remote_memory_block(input, needed, thief, [&](block_move m) {
        // NOLINTNEXTLINE(readability-container-contains): C++17 header (generated code)
        if (!held_.count({m.field, m.block, thief}) && seen.insert({m.field, m.block}).second)
          moves.push_back(std::move(m));
      });
    }
    return moves;
  }
  // The tile that would finish last, and the tile of its chip that runs dry first (tiles_
  // for none).
  std::pair<std::size_t, std::size_t> victim_and_thief() const {
    std::size_t thief = tiles_, victim = tiles_;
    for (std::size_t t = 0; t < tiles_; ++t)
      if (!queue_[t].empty() && (victim == tiles_ || finish(t) > finish(victim)))
        victim = t;
    if (victim == tiles_)
      return {tiles_, tiles_};
    for (std::size_t t = 0; t < tiles_; ++t)
      if (t != victim && chip(t) == chip(victim) && (thief == tiles_ || finish(t) < finish(thief)))
        thief = t;
    return {victim, thief};
  }
  // The victim loses its bottom task to the thief, if the whole forall gets shorter. False
  // when no steal helps (the loads a failed trial changed are not used again).
  bool steal_one() {
    const auto [victim, thief] = victim_and_thief();
    if (victim == tiles_ || thief == tiles_)
      return false;
    const forall_task task = queue_[victim].back();
    const grid<N> g = task_grid(task);
    index<N> mb;
    for (int d = 0; d < N; ++d)
      mb[d] = g.offset[d] / output_.memory_block()[d];
    auto runs =
        contiguous_runs(g, resource_map<N>::block_grid(output_.parent(), output_.memory_block(), mb));
    const std::int64_t old_makespan = makespan();
    const auto fetch = missing_inputs(task, static_cast<int>(thief));
    if (std::any_of(fetch.begin(), fetch.end(), [&](const block_move& m) {
          return chip(static_cast<std::size_t>(m.from_tile)) != chip(thief);
        }))
      return false;
    for (const auto& m : fetch) {
      load_[thief].in += m.bytes;
      load_[thief].senders.insert(static_cast<std::size_t>(m.from_tile));
      load_[static_cast<std::size_t>(m.from_tile)].out += m.bytes;
    }
    const std::int64_t cost = compute_cost(task);
    const std::int64_t result_bytes = g.total_extent() * output_element_bytes_;
    if (costs_.fetch_output) { // the task's output runs come from its owner before the tasks
      load_[thief].in += result_bytes;
      load_[thief].senders.insert(victim);
      load_[victim].out += result_bytes;
    }
    load_[victim].work -= cost;
    load_[thief].work += cost;
    load_[victim].returns_in += result_bytes;
    load_[thief].returns_out += result_bytes;
    if (makespan() >= old_makespan)
      return false;
    queue_[victim].pop_back();
    for (const auto& m : fetch) {
      held_.insert({m.field, m.block, m.to_tile});
      result_.extra_moves.push_back(m);
    }
    result_.returns.push_back({task.block, owner_copy_detail::coords(mb), std::move(runs),
                               static_cast<int>(thief), task.tile});
    stolen_by_[thief].push_back(task);
    ++result_.stolen;
    return true;
  }

  const resource_map<N>& output_;
  const std::vector<input_access<N>>& inputs_;
  const std::int64_t output_element_bytes_;
  const steal_costs& costs_;
  const std::size_t tiles_;
  // Which input memory blocks each tile holds: owned ones are found through the map; moved
  // ones are recorded here.
  std::set<std::tuple<std::string, std::vector<std::int64_t>, int>> held_;
  std::vector<tile_load> load_;
  std::vector<std::deque<forall_task>> queue_;
  std::vector<std::vector<forall_task>> stolen_by_;
  steal_result result_;
};

} // namespace work_stealing_detail

// Steals over the plan's queues. `plan` supplies the queues and the owner-copy moves (which
// decide when each tile can start); the result says which tile runs which task (its own
// tasks first, then the stolen ones) and what extra data moves that needs.
template <int N>
steal_result plan_work_stealing(const owner_copy_plan& plan, const resource_map<N>& output,
                               const std::vector<input_access<N>>& inputs,
                               std::int64_t output_element_bytes, const steal_costs& costs) {
  return work_stealing_detail::stealer<N>(plan, output, inputs, output_element_bytes, costs).run();
}

} // namespace s2p
