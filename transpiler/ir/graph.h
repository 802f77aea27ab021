// The CDFG (control and data flow graph) and CDRFG (CDFG plus resource edges: who must
// release a buffer before it is overwritten), and what later passes record on its edges.
// Every dynamic instance of an intrinsic call is a node; nodes are stored in sequential
// program order, so every edge goes from a lower to a higher node index.
#pragma once

#include "ir/kernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace s2p::ir {

// An address space dependencies are tracked in: a pool (units = elements) or a
// tensor_ref (units = sub-tensor indices).
struct Space {
  std::string name;
  bool is_pool = true;
  std::int64_t units = 0; // 0 = unbounded (tensor_ref)
};

// Half-open [lo, hi).
struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

// The ranges of one space an edge is about.
struct SpaceRanges {
  int space = -1;
  std::vector<Range> ranges;
};

struct ResolvedAccess {
  int tensor = -1;
  int space = -1;
  Range range;
  AccessMode mode = AccessMode::Read;
  std::vector<std::int64_t> coords;
};

enum class Role { Producer, Consumer, ProducerConsumer, Neither };
const char* to_string(Role role);

struct Node {
  std::string id; // p1, c1, x1 (both), n1 (neither): K-th of its role in program order
  int warp = 0;
  Role role = Role::Neither;
  const CallSite* call = nullptr; // the schedule-tree leaf this is an instance of
  std::string text;               // the call with loop variables replaced by their values
  std::vector<ResolvedAccess> accesses;
  std::int64_t elements =
      0; // pool elements touched (the default cost adds tensor_ref sizes at run time)
  std::vector<std::string> cost_arguments; // rendered arguments, when the intrinsic has S2P_COST
  SourceLocation loc;
  // In the analysis window of a symbolic loop: which call of the loop body this is, in
  // which iteration, and the loop variables' values it was expanded with.
  int template_index = -1;
  std::int64_t iteration = -1;
  Bindings env;
  // A call under an `if` that only the running program can decide (on the variable of a
  // loop with a run-time trip count, or on kernel parameters): the call runs when this
  // holds. Its waits and signals run either way, so the synchronization planned as if it
  // always ran stays sound when it does not (predication, as in modulo scheduling).
  std::optional<Condition> guard;
};

enum class EdgeKind { Control, Data, Resource };
const char* to_string(EdgeKind kind);

struct Edge {
  int from = -1;
  int to = -1;
  EdgeKind kind = EdgeKind::Control;
  std::vector<SpaceRanges> labels; // data/resource: the ranges that carry the dependency

  // Filled by remove_redundant_edges: the edge is implied by `witness` (a node of the
  // destination's warp, before it, that `from` reaches), or duplicates another edge.
  bool redundant = false;
  int witness = -1;
  // Filled by allocate_channels for cross-warp edges that remain: channel >= 1 and the
  // number of signals the waiter needs on it.
  int channel = 0;
  std::int64_t phase = 0;
};

struct Graph {
  std::vector<Space> spaces;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  int channel_count = 0;
  int data_channel_count = 0;

  bool crosses_warps(const Edge& e) const { return nodes[e.from].warp != nodes[e.to].warp; }
  // Cross-warp data/resource edges that still need a channel.
  bool needs_sync(const Edge& e) const {
    return e.kind != EdgeKind::Control && !e.redundant && crosses_warps(e);
  }
};

// One warp's program: waits, calls and signals in program order.
// A fence (between regions) is a signal on the fence channel followed by a wait for
// `phase` signals on it: every warp's share of everything before it.
struct WarpOp {
  enum class Kind { Wait, Call, Signal, Fence };
  Kind kind = Kind::Call;
  int node = -1; // the call, or the node the wait precedes / the signal follows
  int edge = -1; // Wait / Signal: the edge synchronized
  int channel = 0;
  std::int64_t phase = 0;
};

struct WarpProgram {
  int warp = 0;
  std::vector<WarpOp> ops;
};

} // namespace s2p::ir
