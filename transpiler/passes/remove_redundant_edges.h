// Redundant-edge removal. A cross-warp data/resource edge u -> v is redundant when u reaches a
// node w of v's warp that comes before v: v's warp already waited for something u
// precedes. This is the provable criterion (no timing estimates); it is not a full
// transitive reduction, which would also drop edges the method keeps. Removing a redundant
// edge never changes reachability (w is chained to v by control edges), so the decision
// does not depend on visiting order. A resource edge parallel to a data edge is redundant
// as well (the data edge already orders the pair).
#pragma once

#include "ir/graph.h"

namespace s2p::passes {

// Marks redundant edges (Edge::redundant, Edge::witness); returns how many.
int remove_redundant_edges(ir::Graph& graph);

} // namespace s2p::passes
