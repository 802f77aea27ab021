// Shared read-only structures of a multi-tile kernel at run time (see <seq2par/tile_program.h>):
// the kernel-level plan (<seq2par/planning/shared_structures.h>) and each launch's buffers and
// multicasts. Every backend runs the multicast as ordinary moves from the master to each
// receiver; the fabric simulator's schedule sends it as one multicast stream.
#include <seq2par/planning/shared_structures.h>
#include <seq2par/runtime.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace s2p::rt {

namespace {

// S2P_SHARED_STRUCTURES=replicate: every structure on every tile (the comparison the memory
// benchmark makes); unset or `plan`: as the plan decides.
bool replication_forced() {
  const char* text = std::getenv("S2P_SHARED_STRUCTURES");
  if (!text || !*text)
    return false;
  const std::string value = text;
  if (value == "replicate")
    return true;
  if (value == "plan")
    return false;
  throw std::invalid_argument("seq2par: S2P_SHARED_STRUCTURES must be 'plan' or 'replicate', not '" +
                              value + "'");
}

} // namespace

shared_structures::shared_structures(const tile_kernel_info& info, std::uint32_t phases,
                                     std::vector<shared_structure_entry> entries)
    : tiles_(info.tiles), entries_(std::move(entries)) {
  shared_structure_problem problem;
  problem.tiles = static_cast<std::uint32_t>(info.tiles);
  problem.phases = phases;
  // The decision needs no layout; the launch's schedule places the buffers. Tile memory is
  // only used for the plan's own allocation (reported, not enforced here).
  problem.params = {std::uint64_t{1} << 40, 16 * 1024, false};
  problem.force_replicate = replication_forced();
  for (const auto& e : entries_)
    problem.structures.push_back({e.name, static_cast<std::uint64_t>(e.bytes), e.phases});
  const shared_structures_result plan = plan_shared_structures(problem);
  for (const auto& s : plan.structures)
    decisions_.push_back({s.decision == share_decision::shared,
                          s.decision == share_decision::shared ? static_cast<int>(s.master) : -1,
                          s.reason});
  peak_bytes_ = static_cast<std::int64_t>(plan.peak_bytes);
  replicated_peak_bytes_ = static_cast<std::int64_t>(plan.replicated_peak_bytes);
}

void add_shared_structures(tile_program& program, const shared_structures& kernel,
                           std::uint32_t phase, int first_field) {
  if (static_cast<int>(program.fields.size()) != first_field)
    throw std::logic_error("seq2par: shared structures must follow a forall's fields");
  const auto tiles = static_cast<std::size_t>(kernel.tiles());
  // Which tiles load each structure from the host: its master, or every tile.
  std::vector<std::vector<bool>> home;
  for (std::size_t k = 0; k < kernel.entries().size(); ++k) {
    const shared_structure_entry& e = kernel.entries()[k];
    const shared_structures::decision& d = kernel.decided(k);
    const bool read_here = std::find(e.phases.begin(), e.phases.end(), phase) != e.phases.end();
    tile_field field{e.name, e.element_type, std::vector<std::int64_t>(tiles, 0),
                     {e.bytes}, true};
    field.received_bytes_per_tile.assign(tiles, 0);
    home.emplace_back(tiles, !d.shared);
    for (std::size_t t = 0; t < tiles; ++t) {
      const bool master = d.shared && static_cast<int>(t) == d.master;
      if (!d.shared || master || read_here)
        field.bytes_per_tile[t] = e.bytes;
      if (master)
        home.back()[t] = true;
      else if (d.shared && read_here) { // the multicast, as one move per receiver
        program.moves.push_back({first_field + static_cast<int>(k), d.master, static_cast<int>(t),
                                 0, 0, e.bytes});
        field.received_bytes_per_tile[t] = e.bytes;
      }
    }
    program.fields.push_back(std::move(field));
    program.shared.push_back({e.name, e.bytes, d.shared, d.master, read_here, d.reason});
  }
  program.shared_peak_bytes = kernel.peak_bytes();
  program.replicated_peak_bytes = kernel.replicated_peak_bytes();
  auto load = std::move(program.load);
  std::vector<std::function<void(std::byte*)>> copies;
  for (const auto& e : kernel.entries())
    copies.push_back(e.copy_in);
  program.load = [load = std::move(load), copies = std::move(copies), home = std::move(home),
                  first_field](int tile, const tile_memory& memory) {
    load(tile, memory);
    for (std::size_t k = 0; k < copies.size(); ++k)
      if (home[k][static_cast<std::size_t>(tile)])
        copies[k](memory(first_field + static_cast<int>(k)).data);
  };
}

} // namespace s2p::rt
