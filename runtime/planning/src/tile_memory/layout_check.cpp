// Every rule of a layout checked from scratch, pair by pair, without the allocator's segments
// or classes: a check that does not share the allocator's reasoning (see
// <seq2par/planning/tile_memory.h>).
#include <seq2par/planning/tile_memory.h>

#include <algorithm>
#include <map>
#include <set>

namespace s2p::rt {

namespace {

std::string name(const memory_problem& p, variable_id v) {
  return '\'' + p.variables[v].name + "' (tile " + std::to_string(p.variables[v].tile) + ")";
}

void check_bounds(const memory_problem& p, const memory_layout& layout,
                  std::vector<std::string>& errors) {
  std::set<std::pair<std::uint32_t, variable_id>> excused;
  for (const tile_out_of_memory& oom : layout.out_of_memory)
    for (const variable_id v : oom.unplaced)
      excused.emplace(oom.tile, v);
  for (variable_id v = 0; v < p.variables.size(); ++v) {
    const tile_variable& var = p.variables[v];
    if (!layout.address[v]) {
      if (!excused.contains({var.tile, v}))
        errors.push_back(name(p, v) + " has no address and no out-of-memory verdict");
      continue;
    }
    const std::uint64_t a = *layout.address[v];
    if (a > p.params.sram_bytes || var.bytes > p.params.sram_bytes - a)
      errors.push_back(name(p, v) + " ends past SRAM");
    if (a % std::max<std::uint64_t>(var.alignment, 1) != 0)
      errors.push_back(name(p, v) + " is not aligned");
  }
}

void check_pair(const memory_problem& p, const memory_layout& layout, variable_id a, variable_id b,
                std::vector<std::string>& errors) {
  const tile_variable& x = p.variables[a];
  const tile_variable& y = p.variables[b];
  if (x.bytes == 0 || y.bytes == 0 || !x.live.overlaps(y.live))
    return;
  const std::uint64_t xl = *layout.address[a], xh = xl + x.bytes;
  const std::uint64_t yl = *layout.address[b], yh = yl + y.bytes;
  if (xl < yh && yl < xh) {
    errors.push_back(name(p, a) + " and " + name(p, b) + " interfere and overlap");
    return;
  }
  const std::uint64_t bank = p.params.bank_bytes;
  if (p.params.separate_banks && bank > 0 && xl / bank <= (yh - 1) / bank &&
      yl / bank <= (xh - 1) / bank)
    errors.push_back(name(p, a) + " and " + name(p, b) + " interfere and share a bank");
}

void check_interference(const memory_problem& p, const memory_layout& layout,
                        std::vector<std::string>& errors) {
  std::vector<std::vector<variable_id>> by_tile(p.tiles);
  for (variable_id v = 0; v < p.variables.size(); ++v)
    if (layout.address[v])
      by_tile.at(p.variables[v].tile).push_back(v);
  for (const auto& placed : by_tile)
    for (std::size_t i = 0; i < placed.size(); ++i)
      for (std::size_t j = i + 1; j < placed.size(); ++j)
        check_pair(p, layout, placed[i], placed[j], errors);
}

// Members of a set share one address; a set that was split shares one per part.
void check_equal_addresses(const memory_problem& p, const memory_layout& layout,
                           std::vector<std::string>& errors) {
  std::map<variable_id, std::size_t> part_of;
  std::size_t parts = 0;
  for (const set_split& split : layout.splits)
    for (const auto& part : split.parts) {
      for (const variable_id v : part)
        part_of[v] = parts;
      ++parts;
    }
  for (const equal_address_set& set : p.equal_address) {
    std::map<std::size_t, std::uint64_t> address_of_part; // `parts`: the set not split
    for (const variable_id v : set.members) {
      if (!layout.address[v])
        continue;
      const auto it = part_of.find(v);
      const std::size_t part = it == part_of.end() ? parts : it->second;
      const auto [known, inserted] = address_of_part.emplace(part, *layout.address[v]);
      if (!inserted && known->second != *layout.address[v])
        errors.push_back(name(p, v) + " is not at its equal-address set's address");
    }
  }
}

} // namespace

std::vector<std::string> layout_errors(const memory_problem& problem, const memory_layout& layout) {
  std::vector<std::string> errors;
  if (layout.refusal)
    return errors; // nothing placed, by design
  check_bounds(problem, layout, errors);
  check_interference(problem, layout, errors);
  check_equal_addresses(problem, layout, errors);
  return errors;
}

} // namespace s2p::rt
