// Channel allocation. Cross-warp edges that remain get numbered synchronization channels,
// data channels first (1..D), then resource channels (D+1..). Edges are taken in program
// order of their source (then destination); each gets the lowest channel of its pool whose
// previous edge's wait provably happens before this edge's signal, else a new channel.
// So signals on one channel are totally ordered, and the k-th edge on a channel waits for
// the channel's k-th signal (Edge::phase = k): a wait can never take someone else's signal.
#pragma once

#include "ir/graph.h"

namespace s2p::passes {

// Sets Edge::channel / Edge::phase and Graph::channel_count / data_channel_count.
void allocate_channels(ir::Graph& graph);

} // namespace s2p::passes
