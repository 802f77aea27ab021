// Equal-address sets: which sets a shared structure's pointers need, and whether a group of sets
// can be honoured at all (see <seq2par/planning/tile_memory.h>).
#include <seq2par/planning/tile_memory.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace s2p::rt {

const char* to_string(pointer_format format) {
  switch (format) {
  case pointer_format::vector_1d:
    return "vector-1d";
  case pointer_format::vector_2d:
    return "vector-2d";
  case pointer_format::vector_list:
    return "vector-list";
  }
  return "?";
}

std::vector<equal_address_set> equal_address_sets_of(const shared_structure& structure) {
  std::vector<equal_address_set> sets;
  for (const shared_pointer& pointer : structure.pointers) {
    // Every format constrains the block the pointer itself holds the address of (the data
    // block, the pointer block, or the offsets block); a vector list also computes addresses
    // from its base pointer, whose target must therefore agree on every receiver too.
    sets.push_back({pointer.target, structure.name});
    if (pointer.format == pointer_format::vector_list)
      sets.push_back({pointer.base_target, structure.name});
  }
  return sets;
}

namespace {

// Union-find over set indices: sets sharing a member are one constraint.
struct set_groups {
  std::vector<std::size_t> parent;
  explicit set_groups(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t root(std::size_t s) {
    while (parent[s] != s)
      s = parent[s] = parent[parent[s]];
    return s;
  }
  void join(std::size_t a, std::size_t b) { parent[root(a)] = root(b); }
};

std::string quoted(std::span<const tile_variable> variables, variable_id v) {
  return "'" + variables[v].name + "'";
}

equal_address_refusal refusal_for(std::span<const tile_variable> variables, variable_id first,
                                  variable_id second, std::vector<std::size_t> sets) {
  equal_address_refusal refusal{variables[first].tile, first, second, std::move(sets), {}};
  std::string list;
  for (const std::size_t s : refusal.sets)
    list += (list.empty() ? "" : ", ") + std::to_string(s);
  refusal.message = "equal-address sets {" + list +
                    "} share members, so all their members would need one address, which forces " +
                    quoted(variables, first) + " and " + quoted(variables, second) +
                    " to one address on tile " + std::to_string(refusal.tile);
  return refusal;
}

} // namespace

equal_address_verdict check_equal_address_sets(std::span<const equal_address_set> sets,
                                               std::span<const tile_variable> variables) {
  set_groups groups(sets.size());
  std::map<variable_id, std::size_t> first_set_of;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (const variable_id v : sets[s].members) {
      const auto [it, inserted] = first_set_of.emplace(v, s);
      if (!inserted)
        groups.join(s, it->second);
    }
  }
  // Gather each group's sets and members (ordered by the group's first set).
  std::map<std::size_t, std::vector<std::size_t>> sets_of_group;
  for (std::size_t s = 0; s < sets.size(); ++s)
    sets_of_group[groups.root(s)].push_back(s);
  std::vector<std::vector<std::size_t>> ordered;
  for (auto& [root, members] : sets_of_group)
    ordered.push_back(std::move(members));
  std::sort(ordered.begin(), ordered.end());

  equal_address_verdict verdict;
  for (const std::vector<std::size_t>& group : ordered) {
    equal_address_set merged{{}, sets[group.front()].structure};
    std::map<std::uint32_t, variable_id> on_tile;
    for (const std::size_t s : group) {
      for (const variable_id v : sets[s].members) {
        const auto [it, inserted] = on_tile.emplace(variables[v].tile, v);
        if (inserted)
          merged.members.push_back(v);
        else if (it->second != v) {
          verdict.refusal = refusal_for(variables, it->second, v, group);
          return verdict;
        }
      }
    }
    verdict.merged.push_back(std::move(merged));
  }
  return verdict;
}

} // namespace s2p::rt
