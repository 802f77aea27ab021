#include "passes/remove_redundant_edges.h"

#include "passes/reachability.h"

#include <set>

namespace s2p::passes {

using namespace s2p::ir;

int remove_redundant_edges(Graph& graph) {
  const Reachability reach(graph);
  std::set<std::pair<int, int>> data_pairs;
  for (const auto& e : graph.edges)
    if (e.kind == EdgeKind::Data)
      data_pairs.insert({e.from, e.to});
  int removed = 0;
  for (auto& e : graph.edges) {
    if (e.kind == EdgeKind::Control || !graph.crosses_warps(e))
      continue;
    if (e.kind == EdgeKind::Resource && data_pairs.contains({e.from, e.to})) {
      e.redundant = true;
      ++removed;
      continue;
    }
    const int witness = reach.earliest_in_warp(e.from, reach.warp_index(e.to));
    if (witness >= 0 && reach.position(witness) < reach.position(e.to)) {
      e.redundant = true;
      e.witness = witness;
      ++removed;
    }
  }
  return removed;
}

} // namespace s2p::passes
