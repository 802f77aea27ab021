// <seq2par/planning/shared_launch.h> — a kernel's S2P_SHARED structures in each of its forall
// launches: the kernel-level share-or-replicate plan (<seq2par/planning/shared_structures.h>)
// as the runtime makes it when the kernel is called, and the fields and multicast moves it adds
// to a launch's program. The runtime and seq2par's schedule templates both call these, so a
// template planned at transpile time is the schedule the program runs.
#pragma once

#include <seq2par/tile_program.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace s2p::rt {

// One S2P_SHARED kernel parameter and what the kernel-level plan decided for it.
struct shared_launch_structure {
  std::string name;
  std::string element_type; // "f32", ...
  std::int64_t bytes = 0;
  std::vector<std::uint32_t> phases; // the kernel's compute phases (its foralls) that read it
  bool shared = false;               // on a master tile and multicast; else replicated
  int master = -1;
  std::string reason;
};

struct shared_kernel_plan {
  std::vector<shared_launch_structure> structures;
  std::int64_t peak_bytes = 0;            // the plan's peak live bytes per tile
  std::int64_t replicated_peak_bytes = 0; // ... with every structure replicated
};

// Decides each structure (the decision fields of `structures` are filled in) for a kernel of
// `tiles` tiles and `phases` foralls. The plan counts the structures alone (the fields are not
// known yet: equal data on every tile); tile memory is the launches' to enforce.
shared_kernel_plan plan_kernel_shared_structures(std::uint32_t tiles, std::uint32_t phases,
                                                 std::vector<shared_launch_structure> structures,
                                                 bool force_replicate);

// Adds the structures to a launch's program (compute phase `phase` of its kernel) as fields
// `first_field`, `first_field + 1`, ...: on its master (or every tile, replicated) for the whole
// launch, and on every other tile while this phase reads it, multicast from the master in the
// exchange before the compute. Returns, per structure, the tiles that load it from the host.
std::vector<std::vector<bool>> add_shared_fields(tile_program& program,
                                                 const shared_kernel_plan& plan,
                                                 std::uint32_t phase, int first_field);

} // namespace s2p::rt
