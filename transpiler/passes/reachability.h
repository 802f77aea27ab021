// Happens-before over a CDRFG. All edges go forward in program order and every warp's
// nodes are chained by control edges, so "u reaches v" is answered by the earliest node of
// v's warp that u reaches: u reaches v iff that node is at or before v. One reverse sweep
// computes it for every (node, warp) pair: O((nodes + edges) * warps).
#pragma once

#include "ir/graph.h"

#include <vector>

namespace s2p::passes {

class Reachability {
public:
  explicit Reachability(const ir::Graph& graph);

  // Does `from` happen before (or equal) `to`?
  bool reaches(int from, int to) const;
  // The first node of `warp_index`'s program that `from` reaches through at least one edge
  // (or is), or -1.
  int earliest_in_warp(int from, int warp_index) const;
  int warp_index(int node) const { return warp_index_[node]; }
  int position(int node) const { return position_[node]; }

private:
  std::vector<int> warp_index_; // dense index of each node's warp
  std::vector<int> position_;   // position of each node in its warp's program
  std::vector<std::vector<int>> nodes_of_warp_;
  std::vector<int> earliest_; // [node * warps + warp] -> position, or INT_MAX
  int warps_ = 0;
};

} // namespace s2p::passes
