#include "passes/reachability.h"

#include <algorithm>
#include <climits>
#include <map>

namespace s2p::passes {

Reachability::Reachability(const ir::Graph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::map<int, int> dense;
  for (const auto& node : graph.nodes)
    dense.try_emplace(node.warp, 0);
  for (auto& [warp, index] : dense)
    index = warps_++;
  warp_index_.resize(n);
  position_.resize(n);
  nodes_of_warp_.resize(warps_);
  for (int v = 0; v < n; ++v) {
    warp_index_[v] = dense[graph.nodes[v].warp];
    position_[v] = static_cast<int>(nodes_of_warp_[warp_index_[v]].size());
    nodes_of_warp_[warp_index_[v]].push_back(v);
  }
  std::vector<std::vector<int>> successors(n);
  for (const auto& e : graph.edges)
    successors[e.from].push_back(e.to);
  earliest_.assign(static_cast<std::size_t>(n) * warps_, INT_MAX);
  for (int v = n - 1; v >= 0; --v) {
    int* mine = &earliest_[static_cast<std::size_t>(v) * warps_];
    mine[warp_index_[v]] = position_[v];
    for (int s : successors[v]) {
      const int* theirs = &earliest_[static_cast<std::size_t>(s) * warps_];
      for (int w = 0; w < warps_; ++w)
        mine[w] = std::min(mine[w], theirs[w]);
    }
  }
}

bool Reachability::reaches(int from, int to) const {
  if (from == to)
    return true;
  if (from > to)
    return false; // edges only go forward in program order
  return earliest_[static_cast<std::size_t>(from) * warps_ + warp_index_[to]] <= position_[to];
}

int Reachability::earliest_in_warp(int from, int warp) const {
  const int pos = earliest_[static_cast<std::size_t>(from) * warps_ + warp];
  return pos == INT_MAX ? -1 : nodes_of_warp_[warp][pos];
}

} // namespace s2p::passes
