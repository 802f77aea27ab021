// The tile memory allocator (see <seq2par/planning/tile_memory.h>): equal-address sets first,
// then each tile's variables in heuristic order, each at the lowest address free of every
// interfering variable placed before it (first fit). By default each tile is laid out by three
// orders and keeps the lowest layout: first fit's packing depends on the order, and no one order
// wins on every tile (scripts/bench memory: the class sort alone packs 46 % of random tiles
// within 1.05 of the liveness bound, by size 70 %, by size class 76 %, the best of the three
// 83 %). Best fit (each variable into the smallest gap that holds it) was tried as well: worse
// than first fit (37 %) and six times slower.
//
// Interference is tracked per segment of the tile's liveness (a stretch of supersteps with a
// constant live set). Every variable live in a segment interferes with every other one there,
// and two variables interfere exactly when they share a segment, so the occupied ranges of a
// segment are precisely what the class-interference table forbids to any class live in it: a
// variable's candidate range is free of all placed interfering variables iff it is free in each
// of its segments. With separate banks an occupied range is widened to whole banks, so a later
// interfering variable cannot touch those banks.
#include <seq2par/planning/tile_memory.h>

#include "tile_memory_internal.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

namespace s2p::rt {

namespace {

constexpr std::size_t kNotListed = std::numeric_limits<std::size_t>::max();

// What placement_order::best_of tries on every tile (scripts/bench memory compares them).
constexpr placement_order kHeuristics[] = {placement_order::by_size_class,
                                           placement_order::by_size,
                                           placement_order::classes_by_bytes};

// The occupied address ranges of one segment, disjoint and merged when they touch.
class segment_occupancy {
public:
  // The end of an occupied range overlapping [lo, hi), if any.
  std::optional<std::uint64_t> conflict(std::uint64_t lo, std::uint64_t hi) const {
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second > lo)
      return std::prev(it)->second;
    if (it != ranges_.end() && it->first < hi)
      return it->second;
    return std::nullopt;
  }

  void occupy(std::uint64_t lo, std::uint64_t hi) {
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second >= lo) {
      --it;
      lo = it->first;
    }
    while (it != ranges_.end() && it->first <= hi) {
      hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, hi);
  }

private:
  std::map<std::uint64_t, std::uint64_t> ranges_; // lo -> hi
};

// One tile's variables with their liveness and the occupancy of each segment.
struct tile_state {
  std::vector<variable_id> variables;
  tile_liveness liveness;
  std::vector<segment_occupancy> occupancy;
};

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

std::uint64_t alignment_of(const tile_variable& v) {
  return std::max<std::uint64_t>(v.alignment, 1);
}

// A variable to place on one tile: its bytes and the segments it is live in.
struct claim {
  tile_state* tile = nullptr;
  std::size_t local = 0; // index in tile->variables
  std::uint64_t bytes = 0;
};

class allocator {
public:
  allocator(const memory_problem& problem, const allocation_options& options)
      : problem_(problem), options_(options), tiles_(problem.tiles),
        local_(problem.variables.size()), by_tile_(problem.tiles) {
    for (variable_id v = 0; v < problem.variables.size(); ++v) {
      if (problem.variables[v].tile >= problem.tiles) // a misuse, as the runtime's rule says
        throw std::invalid_argument("tile memory: variable '" + problem.variables[v].name +
                                    "' is on tile " + std::to_string(problem.variables[v].tile) +
                                    " of a problem with " + std::to_string(problem.tiles));
      auto& list = by_tile_[problem.variables[v].tile];
      local_[v] = list.size();
      list.push_back(v);
    }
    layout_.address.assign(problem.variables.size(), std::nullopt);
    layout_.usage.assign(problem.tiles, {});
    constrained_.assign(problem.variables.size(), false);
    unplaced_.assign(problem.tiles, {});
  }

  memory_layout run() {
    const equal_address_verdict verdict =
        check_equal_address_sets(problem_.equal_address, problem_.variables);
    if (!verdict.legal()) {
      layout_.refusal = verdict.refusal;
      return std::move(layout_);
    }
    place_equal_address_sets(verdict.merged);
    for (std::uint32_t t = 0; t < problem_.tiles; ++t) {
      if (!by_tile_[t].empty())
        place_tile(state(t));
      finish_tile(t);
    }
    return std::move(layout_);
  }

private:
  tile_state& state(std::uint32_t tile) {
    if (!tiles_[tile])
      tiles_[tile] = build_state(tile);
    return *tiles_[tile];
  }

  std::unique_ptr<tile_state> build_state(std::uint32_t tile) const {
    auto s = std::make_unique<tile_state>();
    s->variables = by_tile_[tile];
    std::vector<live_range> ranges;
    std::vector<std::uint64_t> bytes;
    for (const variable_id v : s->variables) {
      ranges.push_back(problem_.variables[v].live);
      bytes.push_back(problem_.variables[v].bytes);
    }
    s->liveness = analyse_tile(ranges, bytes);
    s->occupancy.resize(s->liveness.segment_start.size());
    return s;
  }

  // The range a variable at `address` blocks for interfering ones: whole banks when banks
  // are separated.
  std::pair<std::uint64_t, std::uint64_t> footprint(std::uint64_t address,
                                                    std::uint64_t bytes) const {
    const memory_params& p = problem_.params;
    if (!p.separate_banks || p.bank_bytes == 0)
      return {address, address + bytes};
    return {address / p.bank_bytes * p.bank_bytes, align_up(address + bytes, p.bank_bytes)};
  }

  std::optional<std::uint64_t> lowest_fit(std::span<const claim> claims,
                                          std::uint64_t alignment) const;
  void occupy(const claim& c, std::uint64_t address) {
    if (c.bytes == 0)
      return;
    const auto [lo, hi] = footprint(address, c.bytes);
    const auto span = c.tile->liveness.segment_of[c.local];
    for (std::uint32_t s = span.first; s <= span.last; ++s)
      c.tile->occupancy[s].occupy(lo, hi);
  }
  claim claim_of(variable_id v) {
    return {&state(problem_.variables[v].tile), local_[v], problem_.variables[v].bytes};
  }

  bool place_together(std::span<const variable_id> members);
  void place_equal_address_sets(const std::vector<equal_address_set>& sets);
  void place_set(const equal_address_set& set);
  std::vector<std::size_t> tile_order(const tile_state& tile, placement_order heuristic) const;
  std::uint64_t place_in_order(tile_state& tile, std::span<const std::size_t> order);
  void place_tile(tile_state& tile);
  void finish_tile(std::uint32_t tile);

  const memory_problem& problem_;
  const allocation_options& options_;
  std::vector<std::unique_ptr<tile_state>> tiles_;
  std::vector<std::size_t> local_;
  std::vector<std::vector<variable_id>> by_tile_;
  std::vector<bool> constrained_;
  std::vector<std::vector<variable_id>> unplaced_;
  memory_layout layout_;
  // Scratch of lowest_fit, kept to spare an allocation per variable.
  mutable std::vector<std::pair<const claim*, std::uint32_t>> checks_;
};

// The lowest address, aligned, where every claim's range is free in each of its segments and
// inside SRAM. A conflict moves the candidate past the occupied range it hit; the segments are
// visited in a cycle until a whole cycle finds no conflict.
std::optional<std::uint64_t> allocator::lowest_fit(std::span<const claim> claims,
                                                   std::uint64_t alignment) const {
  std::vector<std::pair<const claim*, std::uint32_t>>& checks = checks_; // (claim, segment)
  checks.clear();
  std::uint64_t largest = 0;
  for (const claim& c : claims) {
    largest = std::max(largest, c.bytes);
    if (c.bytes == 0)
      continue;
    const auto span = c.tile->liveness.segment_of[c.local];
    for (std::uint32_t s = span.first; s <= span.last; ++s)
      checks.emplace_back(&c, s);
  }
  const std::uint64_t sram = problem_.params.sram_bytes;
  std::uint64_t candidate = 0;
  std::size_t i = 0, clean = 0; // checks passed in a row at the current candidate
  while (clean < checks.size()) {
    if (largest > sram || candidate > sram - largest)
      return std::nullopt;
    const auto [c, segment] = checks[i];
    const auto [lo, hi] = footprint(candidate, c->bytes);
    if (const auto end = c->tile->occupancy[segment].conflict(lo, hi)) {
      candidate = align_up(*end, alignment); // and check this segment again there
      clean = 0;
      continue;
    }
    ++clean;
    i = (i + 1) % checks.size();
  }
  if (largest > sram || candidate > sram - largest)
    return std::nullopt;
  return candidate;
}

// Places variables of different tiles at one address (a single variable is the trivial case).
bool allocator::place_together(std::span<const variable_id> members) {
  std::vector<claim> claims;
  std::uint64_t alignment = 1;
  for (const variable_id v : members) {
    claims.push_back(claim_of(v));
    alignment = std::max(alignment, alignment_of(problem_.variables[v]));
  }
  const auto address = lowest_fit(claims, alignment);
  if (!address)
    return false;
  for (std::size_t i = 0; i < members.size(); ++i) {
    occupy(claims[i], *address);
    layout_.address[members[i]] = address;
  }
  return true;
}

// Equal-address sets before anything else, those with the most members first, then the biggest:
// each is one variable whose range must be free on all its members' tiles, in each member's own
// segments (the union of the members' interferences across their tiles). A set only some tiles
// hold (a task's code on the tiles that run tasks) placed below one every tile holds would leave
// its hole on every tile without it; above, it costs only the tiles that hold it.
void allocator::place_equal_address_sets(const std::vector<equal_address_set>& sets) {
  std::vector<std::size_t> order(sets.size());
  std::iota(order.begin(), order.end(), 0);
  const auto total = [&](std::size_t s) {
    std::uint64_t sum = 0;
    for (const variable_id v : sets[s].members)
      sum += problem_.variables[v].bytes;
    return sum;
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (sets[a].members.size() != sets[b].members.size())
      return sets[a].members.size() > sets[b].members.size();
    return total(a) != total(b) ? total(a) > total(b) : a < b;
  });
  for (const std::size_t s : order) {
    for (const variable_id v : sets[s].members)
      constrained_[v] = true;
    place_set(sets[s]);
  }
}

// A set with no common free address is split in two by receiving tiles (its structure becomes
// two smaller shared structures, each with its own pointer values) and each part retried, down
// to single members; a single member that does not fit is out of memory on its tile.
void allocator::place_set(const equal_address_set& set) {
  std::vector<variable_id> members = set.members;
  std::sort(members.begin(), members.end(), [&](variable_id a, variable_id b) {
    return problem_.variables[a].tile < problem_.variables[b].tile; // one member per tile
  });
  std::vector<std::vector<variable_id>> pending{members}, parts;
  while (!pending.empty()) {
    std::vector<variable_id> part = std::move(pending.back());
    pending.pop_back();
    if (place_together(part)) {
      parts.push_back(std::move(part));
    } else if (part.size() == 1) {
      unplaced_[problem_.variables[part.front()].tile].push_back(part.front());
    } else {
      const auto middle = part.begin() + static_cast<std::ptrdiff_t>(part.size() / 2);
      pending.emplace_back(middle, part.end());
      pending.emplace_back(part.begin(), middle);
    }
  }
  if (parts.size() > 1 || (parts.size() == 1 && parts.front().size() < members.size()))
    layout_.splits.push_back({set.structure, std::move(parts)});
}

// The sort key of the size orders (all descending): bytes, then live span; or the power-of-two
// size class, then live span, then bytes (long-lived variables of a size class settle low,
// short ones reuse the space above them).
std::tuple<std::uint64_t, std::uint64_t, std::uint64_t> size_key(const tile_variable& v,
                                                                 placement_order order) {
  const std::uint64_t span = std::uint64_t{v.live.last} - v.live.first + 1;
  if (order == placement_order::by_size)
    return {v.bytes, span, alignment_of(v)};
  return {static_cast<std::uint64_t>(std::bit_width(v.bytes)), span, v.bytes};
}

// The heuristic order: classes by total bytes, then by how many classes they interfere with (a
// row of the table), then by live span, all descending; within a class by bytes, then alignment,
// descending. Or the caller's order.
std::vector<std::size_t> allocator::tile_order(const tile_state& tile,
                                               placement_order heuristic) const {
  std::vector<std::size_t> order(tile.variables.size());
  std::iota(order.begin(), order.end(), 0);
  if (heuristic == placement_order::by_size || heuristic == placement_order::by_size_class) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const auto ka = size_key(problem_.variables[tile.variables[a]], heuristic);
      const auto kb = size_key(problem_.variables[tile.variables[b]], heuristic);
      return ka != kb ? ka > kb : a < b;
    });
    return order;
  }
  if (heuristic == placement_order::given && !tile.variables.empty()) {
    std::vector<std::size_t> position(tile.variables.size(), kNotListed);
    for (std::size_t i = 0; i < options_.given_order.size(); ++i) {
      const variable_id v = options_.given_order[i];
      if (problem_.variables.at(v).tile == problem_.variables.at(tile.variables.front()).tile)
        position[local_[v]] = std::min(position[local_[v]], i);
    }
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return position[a] != position[b] ? position[a] < position[b] : a < b;
    });
    return order;
  }
  const tile_liveness& l = tile.liveness;
  std::vector<std::size_t> degree(l.classes.size(), 0);
  for (std::size_t c = 0; c < l.classes.size(); ++c)
    for (std::size_t w = 0; w < l.words_per_row; ++w)
      degree[c] += static_cast<std::size_t>(std::popcount(l.table[c * l.words_per_row + w]));
  const auto class_key = [&](std::size_t c) {
    const auto& k = l.classes[c];
    return std::tuple{k.total_bytes, degree[c], k.segments.last - k.segments.first};
  };
  const auto variable_key = [&](std::size_t local) {
    const tile_variable& v = problem_.variables[tile.variables[local]];
    return std::tuple{v.bytes, alignment_of(v)};
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const std::size_t ca = l.class_of[a], cb = l.class_of[b];
    if (ca != cb)
      return class_key(ca) != class_key(cb) ? class_key(ca) > class_key(cb) : ca < cb;
    return variable_key(a) != variable_key(b) ? variable_key(a) > variable_key(b) : a < b;
  });
  return order;
}

// Places the tile's unconstrained variables in `order`, each at its lowest free address (first
// fit); records their addresses and the variables that found no room, and returns the highest
// address the tile uses + 1 (what its layout costs).
std::uint64_t allocator::place_in_order(tile_state& tile, std::span<const std::size_t> order) {
  std::uint64_t end = 0;
  for (const std::size_t local : order) {
    const variable_id v = tile.variables[local];
    if (constrained_[v]) {
      if (layout_.address[v])
        end = std::max(end, *layout_.address[v] + problem_.variables[v].bytes);
      continue;
    }
    const claim c = claim_of(v);
    const auto address = lowest_fit({&c, 1}, alignment_of(problem_.variables[v]));
    if (!address) {
      unplaced_[problem_.variables[v].tile].push_back(v);
      continue;
    }
    occupy(c, *address);
    layout_.address[v] = address;
    end = std::max(end, *address + c.bytes);
  }
  return end;
}

void allocator::place_tile(tile_state& tile) {
  if (options_.order != placement_order::best_of) {
    place_in_order(tile, tile_order(tile, options_.order));
    return;
  }
  // Each heuristic from the same start (the equal-address sets already placed); the layout with
  // the fewest unplaced variables, then the lowest end, is kept.
  const std::uint32_t t = problem_.variables[tile.variables.front()].tile;
  const std::vector<segment_occupancy> start = tile.occupancy;
  const std::vector<variable_id> start_unplaced = unplaced_[t]; // members of refused sets
  struct attempt {
    std::size_t unplaced = 0;
    std::uint64_t end = 0;
    std::vector<std::optional<std::uint64_t>> address;
    std::vector<variable_id> unplaced_variables;
  };
  std::optional<attempt> kept;
  // No layout ends below the bytes live at once: a heuristic that reaches them is kept.
  const std::uint64_t bound = peak_live(problem_.variables, tile.variables).bytes;
  for (const placement_order order : kHeuristics) {
    if (kept && kept->unplaced == 0 && kept->end <= bound)
      break;
    if (kept) { // start again from the equal-address sets
      tile.occupancy = start;
      unplaced_[t] = start_unplaced;
      for (const variable_id v : tile.variables)
        if (!constrained_[v])
          layout_.address[v].reset();
    }
    attempt a;
    a.end = place_in_order(tile, tile_order(tile, order));
    a.unplaced = unplaced_[t].size();
    if (kept && std::pair(kept->unplaced, kept->end) <= std::pair(a.unplaced, a.end))
      continue;
    for (const variable_id v : tile.variables)
      a.address.push_back(layout_.address[v]);
    a.unplaced_variables = unplaced_[t];
    kept = std::move(a);
  }
  for (std::size_t i = 0; i < tile.variables.size(); ++i)
    layout_.address[tile.variables[i]] = kept->address[i];
  unplaced_[t] = std::move(kept->unplaced_variables);
}

// What the tile uses, and the out-of-memory verdict when something found no room. The tile's
// state (liveness, occupancy) is dropped: tiles are independent from here on.
void allocator::finish_tile(std::uint32_t tile) {
  const live_peak peak = peak_live(problem_.variables, by_tile_[tile]);
  tile_usage& usage = layout_.usage[tile];
  usage.peak_live_bytes = peak.bytes;
  for (const variable_id v : by_tile_[tile])
    if (layout_.address[v])
      usage.end = std::max(usage.end, *layout_.address[v] + problem_.variables[v].bytes);
  if (!unplaced_[tile].empty()) {
    std::sort(unplaced_[tile].begin(), unplaced_[tile].end());
    layout_.out_of_memory.push_back(
        out_of_memory_verdict(problem_, tile, by_tile_[tile], peak, unplaced_[tile]));
  }
  tiles_[tile].reset();
}

} // namespace

memory_layout allocate(const memory_problem& problem, const allocation_options& options) {
  return allocator(problem, options).run();
}

} // namespace s2p::rt
