// Shared read-only structures of a multi-tile kernel at run time (see <seq2par/tile_program.h>):
// the kernel-level plan (<seq2par/planning/shared_structures.h>) and each launch's buffers and
// multicasts. Every backend runs the multicast as ordinary moves from the master to each
// receiver; the fabric simulator's schedule sends it as one multicast stream.
#include <seq2par/planning/shared_launch.h>
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

// The plan as the planning library keeps it, from a kernel's entries and their decisions.
shared_kernel_plan plan_of(const shared_structures& kernel) {
  shared_kernel_plan plan{{}, kernel.peak_bytes(), kernel.replicated_peak_bytes()};
  for (std::size_t k = 0; k < kernel.entries().size(); ++k) {
    const shared_structure_entry& e = kernel.entries()[k];
    const shared_structures::decision& d = kernel.decided(k);
    plan.structures.push_back({e.name, e.element_type, e.bytes, e.phases, d.shared, d.master,
                               d.reason});
  }
  return plan;
}

} // namespace

shared_structures::shared_structures(const tile_kernel_info& info, std::uint32_t phases,
                                     std::vector<shared_structure_entry> entries)
    : tiles_(info.tiles), entries_(std::move(entries)) {
  std::vector<shared_launch_structure> structures;
  for (const auto& e : entries_)
    structures.push_back({e.name, e.element_type, e.bytes, e.phases, false, -1, {}});
  const shared_kernel_plan plan = plan_kernel_shared_structures(
      static_cast<std::uint32_t>(info.tiles), phases, std::move(structures), replication_forced());
  for (const auto& s : plan.structures)
    decisions_.push_back({s.shared, s.master, s.reason});
  peak_bytes_ = plan.peak_bytes;
  replicated_peak_bytes_ = plan.replicated_peak_bytes;
}

void add_shared_structures(tile_program& program, const shared_structures& kernel,
                           std::uint32_t phase, int first_field) {
  // Which tiles load each structure from the host: its master, or every tile.
  std::vector<std::vector<bool>> home =
      add_shared_fields(program, plan_of(kernel), phase, first_field);
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
