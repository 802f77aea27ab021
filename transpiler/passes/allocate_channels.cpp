#include "passes/allocate_channels.h"

#include "passes/reachability.h"

#include <algorithm>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

// Assigns channels first_channel, first_channel+1, ... to `edges` (already in order);
// returns the number of channels used.
int assign_pool(Graph& graph, const Reachability& reach, const std::vector<int>& edges,
                int first_channel) {
  std::vector<int> last_edge_on; // per channel of this pool
  for (int index : edges) {
    Edge& e = graph.edges[index];
    int chosen = -1;
    for (std::size_t c = 0; c < last_edge_on.size() && chosen < 0; ++c)
      if (reach.reaches(graph.edges[last_edge_on[c]].to, e.from))
        chosen = static_cast<int>(c);
    if (chosen < 0) {
      chosen = static_cast<int>(last_edge_on.size());
      last_edge_on.push_back(index);
      e.phase = 1;
    } else {
      e.phase = graph.edges[last_edge_on[chosen]].phase + 1;
      last_edge_on[chosen] = index;
    }
    e.channel = first_channel + chosen;
  }
  return static_cast<int>(last_edge_on.size());
}

} // namespace

void allocate_channels(Graph& graph) {
  const Reachability reach(graph);
  std::vector<int> data, resource;
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    Edge& e = graph.edges[i];
    e.channel = 0;
    e.phase = 0;
    if (!graph.needs_sync(e))
      continue;
    (e.kind == EdgeKind::Data ? data : resource).push_back(i);
  }
  auto by_source = [&](int a, int b) {
    const Edge& x = graph.edges[a];
    const Edge& y = graph.edges[b];
    return x.from != y.from ? x.from < y.from : x.to < y.to;
  };
  std::sort(data.begin(), data.end(), by_source);
  std::sort(resource.begin(), resource.end(), by_source);
  graph.data_channel_count = assign_pool(graph, reach, data, 1);
  graph.channel_count =
      graph.data_channel_count + assign_pool(graph, reach, resource, graph.data_channel_count + 1);
}

} // namespace s2p::passes
