// S2P_SHARED structures in a kernel's launches (see <seq2par/planning/shared_launch.h>).
#include <seq2par/planning/shared_launch.h>
#include <seq2par/planning/shared_structures.h>

#include <algorithm>
#include <stdexcept>

namespace s2p::rt {

namespace {

// The kernel-level decision needs no layout (each launch's schedule places its buffers): tile
// memory large enough never to refuse, banks as the built-in chip's.
constexpr memory_params kDecisionMemory{std::uint64_t{1} << 40, std::uint64_t{16} * 1024, false};

} // namespace

shared_kernel_plan plan_kernel_shared_structures(std::uint32_t tiles, std::uint32_t phases,
                                                 std::vector<shared_launch_structure> structures,
                                                 bool force_replicate) {
  shared_structure_problem problem;
  problem.tiles = tiles;
  problem.phases = phases;
  problem.params = kDecisionMemory;
  problem.force_replicate = force_replicate;
  for (const auto& s : structures)
    problem.structures.push_back({s.name, static_cast<std::uint64_t>(s.bytes), s.phases});
  const shared_structures_result result = plan_shared_structures(problem);
  for (std::size_t k = 0; k < structures.size(); ++k) {
    const shared_structure_plan& decided = result.structures[k];
    structures[k].shared = decided.decision == share_decision::shared;
    structures[k].master = structures[k].shared ? static_cast<int>(decided.master) : -1;
    structures[k].reason = decided.reason;
  }
  return {std::move(structures), static_cast<std::int64_t>(result.peak_bytes),
          static_cast<std::int64_t>(result.replicated_peak_bytes)};
}

std::vector<std::vector<bool>> add_shared_fields(tile_program& program,
                                                 const shared_kernel_plan& plan,
                                                 std::uint32_t phase, int first_field) {
  if (static_cast<int>(program.fields.size()) != first_field)
    throw std::logic_error("seq2par: shared structures must follow a forall's fields");
  const std::size_t tiles =
      program.fields.empty() ? 0 : program.fields.front().bytes_per_tile.size();
  std::vector<std::vector<bool>> home;
  for (std::size_t k = 0; k < plan.structures.size(); ++k) {
    const shared_launch_structure& s = plan.structures[k];
    const bool read_here = std::find(s.phases.begin(), s.phases.end(), phase) != s.phases.end();
    tile_field field{s.name, s.element_type, std::vector<std::int64_t>(tiles, 0), {s.bytes}, true};
    field.received_bytes_per_tile.assign(tiles, 0);
    home.emplace_back(tiles, !s.shared);
    for (std::size_t t = 0; t < tiles; ++t) {
      const bool master = s.shared && static_cast<int>(t) == s.master;
      if (!s.shared || master || read_here)
        field.bytes_per_tile[t] = s.bytes;
      if (master)
        home.back()[t] = true;
      else if (s.shared && read_here) { // the multicast, as one move per receiver
        program.moves.push_back(
            {first_field + static_cast<int>(k), s.master, static_cast<int>(t), 0, 0, s.bytes});
        field.received_bytes_per_tile[t] = s.bytes;
      }
    }
    program.fields.push_back(std::move(field));
    program.shared.push_back({s.name, s.bytes, s.shared, s.master, read_here, s.reason});
  }
  program.shared_peak_bytes = plan.peak_bytes;
  program.replicated_peak_bytes = plan.replicated_peak_bytes;
  return home;
}

} // namespace s2p::rt
