// The structural verifier of the warp-split IR (as MLIR verifies each operation between
// passes): the invariants a WarpSplit must hold once a given pass has run, checked without
// asking whether the split is sound (verify_sync.h proves that). A broken invariant is a bug
// in the pass that ran last, so run_warp_split runs this after every pass and stops with an
// internal error naming that pass, instead of letting a later pass or the emitter work on a
// malformed graph.
//
// What holds after each pass (each pass keeps what the ones before it established):
//  - build-cdfg: every edge runs forward in program order between existing nodes (from < to),
//    its labels name existing spaces with ranges lo <= hi; every node is the instance of a
//    call; nothing is redundant and no edge has a channel yet;
//  - remove-redundant-edges: a redundant edge's witness, when it has one, is a node of the
//    destination's warp before the destination;
//  - allocate-channels: the kernel has one kind per channel; exactly the cross-warp data and
//    resource edges left (Graph::needs_sync) have a channel, of their own kind, and the edges
//    of one channel wait for its signals 1, 2, ... k (phases); a symbolic loop's families
//    name body calls and channels of their kind, and each warp has one program per residue
//    of the period whose ops name body calls and families;
//  - split-warps: every call appears once, in the program of its warp, the calls of a warp
//    in program order; each synchronized edge has one signal after its source and one wait
//    before its destination, on the edge's channel and phase, in those nodes' warps.
#pragma once

#include "passes/warp_split.h"

#include <string>
#include <vector>

namespace s2p::passes {

// The invariants `plan` breaks after `last` ran (pass order: every pass before it ran
// too, verify-sync adding nothing structural); empty when it holds them all.
std::vector<std::string> verify_ir(const WarpSplit& plan, WarpSplitPass last);

} // namespace s2p::passes
