// A multi-tile kernel's forall steps as access relations (access_relations.h): what the
// front end recorded of each step (its output, the index maps of its reads, its further
// outputs) lowered to one polyhedral statement per step, over the output's extent when the
// calls fix it and over symbolic extents otherwise. Fields are named by their data (the kernel
// parameter an agile field distributes), so two views of one buffer are one field. The stages
// that ask whether steps may share tasks (fusion) and the `--dump=access` dump read these.
#pragma once

#include "access/access_relations.h"
#include "ir/kernel.h"

#include <cstddef>
#include <string>
#include <vector>

namespace s2p::access {

// Where an access of a lowered statement came from, for messages: the step, the agile view
// the body names and its index map as the diagnostics print it ("i+1", "(i1, i0-1)").
// Access::where holds the origin's position in StepRelations::origins.
struct AccessOrigin {
  std::size_t step = 0;
  std::string view;
  std::string index;
};

struct StepRelations {
  Statement statement;
  std::vector<AccessOrigin> origins;
  const AccessOrigin& origin_of(const Access& access) const;
};

// Steps [first, first + count) of `multi` (foralls over one rank) as one statement: every
// index point runs each step's body in order, the points in parallel (a fused forall). With
// count 1, one step as written.
StepRelations tile_step_relations(const ir::MultiTile& multi, std::size_t first,
                                  std::size_t count = 1);

// An index map as the diagnostics print it: "i+1", "(i1, i0-1)", "k" for a body loop's axis.
std::string index_text(const ir::TileStep::IndexMap& map);

} // namespace s2p::access
