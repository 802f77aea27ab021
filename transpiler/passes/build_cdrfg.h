// Resource edges: CDFG + required resources -> CDRFG. Walking nodes in program
// order, each pool unit has holders: the readers of the data currently in it, or its
// writer if nobody read it. A node that writes a range must wait until every other holder
// of it has released it: one resource edge holder -> writer per holder, labelled with the
// maximal half-open sub-ranges it held. The same walk over tensor_ref sub-tensors orders
// write-after-read and write-after-write on off-tile data.
#pragma once

#include "ir/graph.h"

namespace s2p::passes {

void add_resource_edges(ir::Graph& graph);

} // namespace s2p::passes
