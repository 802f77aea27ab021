// Shared read-only structures on master tiles (see <seq2par/planning/shared_structures.h>): the
// share-or-replicate decision over the chip's peak live memory, masters, multicast periods, and
// the allocation of every tile's memory with the receivers' copies as equal-address sets.
#include <seq2par/planning/shared_structures.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace s2p::rt {

const char* to_string(share_decision decision) {
  return decision == share_decision::shared ? "shared" : "replicated";
}

std::vector<std::uint32_t> shared_structure_plan::receivers() const {
  std::vector<std::uint32_t> result;
  for (std::uint32_t t = 0; t < tiles; ++t)
    if (t != master)
      result.push_back(t);
  return result;
}

std::uint32_t master_limit(std::uint32_t tiles, std::uint32_t max_masters) {
  // Fewer than one third: masters * 3 < tiles.
  const std::uint32_t below_third = tiles == 0 ? 0 : (tiles - 1) / 3;
  return std::min(below_third, max_masters);
}

namespace {

// Runs of consecutive phases in a structure's (sorted, unique) phases.
std::vector<shared_period> periods_of(std::vector<std::uint32_t> phases) {
  std::sort(phases.begin(), phases.end());
  phases.erase(std::unique(phases.begin(), phases.end()), phases.end());
  std::vector<shared_period> runs;
  for (const std::uint32_t p : phases) {
    if (!runs.empty() && runs.back().last_phase + 1 == p) {
      runs.back().last_phase = p;
    } else {
      runs.push_back({p, p, {}, 0});
    }
  }
  for (auto& run : runs) // its multicast's exchange to its last compute
    run.live = {2 * run.first_phase, 2 * run.last_phase + 1};
  return runs;
}

// Which structures are shared, and where: the state the decision searches over.
struct choice {
  std::vector<bool> shared;
  std::vector<std::uint32_t> master;
};

class peak_model {
public:
  peak_model(const shared_structure_problem& problem,
             const std::vector<std::vector<shared_period>>& periods)
      : problem_(problem), periods_(periods), supersteps_(2 * problem.phases) {}

  std::uint64_t data(std::uint32_t phase, std::uint32_t tile) const {
    const auto& rows = problem_.data_bytes;
    if (phase >= rows.size() || tile >= rows[phase].size())
      return 0;
    return rows[phase][tile];
  }

  // Bytes live on `tile` in superstep `s` under `c`.
  std::uint64_t live(const choice& c, std::uint32_t tile, std::uint32_t s) const {
    std::uint64_t bytes = data(s / 2, tile);
    for (std::size_t k = 0; k < problem_.structures.size(); ++k) {
      const std::uint64_t size = problem_.structures[k].bytes;
      if (!c.shared[k]) {
        bytes += size;
        continue;
      }
      const std::uint64_t code = problem_.exchange_code_bytes * periods_[k].size();
      if (c.master[k] == tile) {
        bytes += size + code;
        continue;
      }
      bytes += code;
      for (const auto& period : periods_[k])
        if (period.live.first <= s && s <= period.live.last)
          bytes += size;
    }
    return bytes;
  }

  std::uint64_t tile_peak(const choice& c, std::uint32_t tile) const {
    std::uint64_t peak = 0;
    for (std::uint32_t s = 0; s < supersteps_; ++s)
      peak = std::max(peak, live(c, tile, s));
    return peak;
  }

  std::uint64_t chip_peak(const choice& c) const {
    std::uint64_t peak = 0;
    for (std::uint32_t t = 0; t < problem_.tiles; ++t)
      peak = std::max(peak, tile_peak(c, t));
    return peak;
  }

private:
  const shared_structure_problem& problem_;
  const std::vector<std::vector<shared_period>>& periods_;
  std::uint32_t supersteps_;
};

void check_problem(const shared_structure_problem& problem) {
  for (const auto& s : problem.structures) {
    if (s.phases.empty())
      throw std::invalid_argument("seq2par: shared structure '" + s.name +
                                  "' is read in no compute phase");
    for (const std::uint32_t p : s.phases)
      if (p >= problem.phases)
        throw std::invalid_argument("seq2par: shared structure '" + s.name + "' is read in phase " +
                                    std::to_string(p) + " of " + std::to_string(problem.phases));
  }
}

// Structures largest first (ties in the problem's order).
std::vector<std::size_t> largest_first(const shared_structure_problem& problem) {
  std::vector<std::size_t> order(problem.structures.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // std::sort with the index as tie-break (std::stable_sort's temporary buffer is deprecated
  // in the libstdc++ Clang builds against).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto x = problem.structures[a].bytes, y = problem.structures[b].bytes;
    return x != y ? x > y : a < b;
  });
  return order;
}

// The tiles a structure may go to: the masters so far and, while more are allowed, the tile
// with the lowest peak that is not one (free space holds what the others receive).
std::vector<std::uint32_t> master_candidates(const shared_structure_problem& problem,
                                             const peak_model& model, const choice& c,
                                             const std::vector<std::uint32_t>& masters) {
  std::vector<std::uint32_t> candidates = masters;
  if (masters.size() >= master_limit(problem.tiles, problem.max_masters))
    return candidates;
  std::optional<std::uint32_t> lightest;
  std::uint64_t lightest_peak = 0;
  for (std::uint32_t t = 0; t < problem.tiles; ++t) {
    if (std::find(masters.begin(), masters.end(), t) != masters.end())
      continue;
    const std::uint64_t peak = model.tile_peak(c, t);
    if (!lightest || peak < lightest_peak)
      lightest = t, lightest_peak = peak;
  }
  if (lightest)
    candidates.push_back(*lightest);
  return candidates;
}

// Greedy sharing, largest first: a structure is shared at the candidate master that gives the
// lowest chip peak, kept while the peak rises by no more than its own receive code (sharing one
// structure alone seldom lowers the peak: the master still holds the others; sharing several
// does). Then pruning, smallest first: a shared structure whose replication would not raise the
// peak goes back to replication, and if sharing did not lower the peak at all, nothing is shared.
choice decide(const shared_structure_problem& problem, const peak_model& model,
              const std::vector<std::vector<shared_period>>& periods,
              std::vector<std::string>& reasons) {
  const std::size_t n = problem.structures.size();
  choice replicated_all{std::vector<bool>(n, false), std::vector<std::uint32_t>(n, 0)};
  choice c = replicated_all;
  if (problem.force_replicate) {
    std::fill(reasons.begin(), reasons.end(), std::string("replication forced"));
    return c;
  }
  const std::uint64_t replicated_peak = model.chip_peak(c);
  std::uint64_t peak = replicated_peak;
  std::vector<std::uint32_t> masters;
  for (const std::size_t k : largest_first(problem)) {
    const auto& s = problem.structures[k];
    if (master_limit(problem.tiles, problem.max_masters) == 0) {
      reasons[k] = "no master tile: fewer than one third of " + std::to_string(problem.tiles) +
                   " tiles is none";
      continue;
    }
    if (s.bytes <= problem.exchange_code_bytes) {
      reasons[k] = "smaller than its exchange code (" + std::to_string(s.bytes) + " <= " +
                   std::to_string(problem.exchange_code_bytes) + " bytes)";
      continue;
    }
    const std::uint64_t tolerance = problem.exchange_code_bytes * periods[k].size();
    std::optional<std::uint32_t> best;
    std::uint64_t best_peak = peak + tolerance;
    for (const std::uint32_t m : master_candidates(problem, model, c, masters)) {
      choice trial = c;
      trial.shared[k] = true;
      trial.master[k] = m;
      const std::uint64_t trial_peak = model.chip_peak(trial);
      if (trial_peak <= best_peak)
        best = m, best_peak = trial_peak;
    }
    if (!best) {
      reasons[k] = "sharing would raise the chip's peak live memory";
      continue;
    }
    c.shared[k] = true;
    c.master[k] = *best;
    peak = best_peak;
    if (std::find(masters.begin(), masters.end(), *best) == masters.end())
      masters.push_back(*best);
  }
  const auto order = largest_first(problem);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::size_t k = *it;
    if (!c.shared[k])
      continue;
    choice without_k = c;
    without_k.shared[k] = false;
    const std::uint64_t without = model.chip_peak(without_k);
    if (without <= peak) {
      c = without_k;
      peak = without;
      reasons[k] = "sharing would not lower the chip's peak live memory";
    } else {
      reasons[k] = "sharing lowers the chip's peak live memory from " + std::to_string(without) +
                   " to " + std::to_string(peak) + " bytes";
    }
  }
  if (peak >= replicated_peak) {
    for (std::size_t k = 0; k < n; ++k)
      if (c.shared[k])
        reasons[k] = "sharing would not lower the chip's peak live memory";
    return replicated_all;
  }
  return c;
}

// Every tile's variables: data per phase, copies, exchange code; the receivers' copies of one
// period as an equal-address set. Returns per structure the variable ids to read addresses from.
struct structure_variables {
  std::vector<variable_id> first_copy; // master's (shared) or tile 0's (replicated)
  std::vector<std::vector<variable_id>> receiver_copies; // per period
};

std::vector<structure_variables> build_memory(const shared_structure_problem& problem,
                                              const peak_model& model, const choice& c,
                                              const std::vector<std::vector<shared_period>>& periods,
                                              memory_problem& memory) {
  memory.params = problem.params;
  memory.tiles = problem.tiles;
  const std::uint32_t last = problem.phases == 0 ? 0 : 2 * problem.phases - 1;
  auto add = [&](std::string name, std::uint32_t tile, std::uint64_t bytes, variable_kind kind,
                 live_range live) -> std::optional<variable_id> {
    if (bytes == 0)
      return std::nullopt;
    memory.variables.push_back({std::move(name), tile, bytes, 8, kind, live});
    return memory.variables.size() - 1;
  };
  for (std::uint32_t p = 0; p < problem.phases; ++p)
    for (std::uint32_t t = 0; t < problem.tiles; ++t)
      add("data (phase " + std::to_string(p) + ")", t, model.data(p, t), variable_kind::owned_block,
          {2 * p, 2 * p + 1});
  std::vector<structure_variables> result(problem.structures.size());
  for (std::size_t k = 0; k < problem.structures.size(); ++k) {
    const auto& s = problem.structures[k];
    auto& vars = result[k];
    if (!c.shared[k]) {
      for (std::uint32_t t = 0; t < problem.tiles; ++t)
        if (auto v = add(s.name, t, s.bytes, variable_kind::shared_copy, {0, last}))
          vars.first_copy.push_back(*v);
      continue;
    }
    const std::uint64_t code = problem.exchange_code_bytes * periods[k].size();
    if (auto v = add(s.name + " (master)", c.master[k], s.bytes, variable_kind::shared_copy, {0, last}))
      vars.first_copy.push_back(*v);
    add("send " + s.name, c.master[k], code, variable_kind::code, {0, last});
    for (const auto& period : periods[k]) {
      vars.receiver_copies.emplace_back();
      for (std::uint32_t t = 0; t < problem.tiles; ++t)
        if (t != c.master[k])
          if (auto v = add(s.name + " (received, phases " + std::to_string(period.first_phase) +
                               "-" + std::to_string(period.last_phase) + ")",
                           t, s.bytes, variable_kind::shared_copy, period.live))
            vars.receiver_copies.back().push_back(*v);
      if (vars.receiver_copies.back().size() > 1)
        memory.equal_address.push_back({vars.receiver_copies.back(), s.name});
    }
    for (std::uint32_t t = 0; t < problem.tiles; ++t)
      if (t != c.master[k])
        add("receive " + s.name, t, code, variable_kind::code, {0, last});
  }
  return result;
}

} // namespace

shared_structures_result plan_shared_structures(const shared_structure_problem& problem) {
  check_problem(problem);
  std::vector<std::vector<shared_period>> periods;
  for (const auto& s : problem.structures)
    periods.push_back(periods_of(s.phases));
  const peak_model model(problem, periods);
  std::vector<std::string> reasons(problem.structures.size());
  const choice c = decide(problem, model, periods, reasons);

  shared_structures_result result;
  result.peak_bytes = model.chip_peak(c);
  result.replicated_peak_bytes =
      model.chip_peak({std::vector<bool>(problem.structures.size(), false),
                       std::vector<std::uint32_t>(problem.structures.size(), 0)});
  for (std::uint32_t t = 0; t < problem.tiles; ++t)
    result.tile_peak_bytes.push_back(model.tile_peak(c, t));
  const auto vars = build_memory(problem, model, c, periods, result.memory);
  result.layout = allocate(result.memory);
  auto address_of = [&](variable_id v) {
    const auto& a = result.layout.address[v];
    return a ? *a : 0;
  };
  for (std::size_t k = 0; k < problem.structures.size(); ++k) {
    shared_structure_plan plan;
    plan.name = problem.structures[k].name;
    plan.bytes = problem.structures[k].bytes;
    plan.tiles = problem.tiles;
    plan.reason = reasons[k];
    plan.decision = c.shared[k] ? share_decision::shared : share_decision::replicated;
    const std::uint64_t first = vars[k].first_copy.empty() ? 0 : address_of(vars[k].first_copy[0]);
    if (c.shared[k]) {
      plan.master = c.master[k];
      plan.master_address = first;
      plan.periods = periods[k];
      for (std::size_t p = 0; p < plan.periods.size(); ++p)
        if (!vars[k].receiver_copies[p].empty())
          plan.periods[p].address = address_of(vars[k].receiver_copies[p].front());
      if (std::find(result.masters.begin(), result.masters.end(), plan.master) ==
          result.masters.end())
        result.masters.push_back(plan.master);
    } else {
      plan.replicated_address = first;
    }
    result.structures.push_back(std::move(plan));
  }
  std::sort(result.masters.begin(), result.masters.end());
  return result;
}

} // namespace s2p::rt
