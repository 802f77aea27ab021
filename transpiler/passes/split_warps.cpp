#include "passes/split_warps.h"

#include <algorithm>
#include <map>

namespace s2p::passes {

using namespace s2p::ir;

std::vector<WarpProgram> split_warps(const Graph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<std::vector<int>> incoming(n), outgoing(n);
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    const Edge& e = graph.edges[i];
    if (!graph.needs_sync(e))
      continue;
    incoming[e.to].push_back(i);
    outgoing[e.from].push_back(i);
  }
  std::map<int, WarpProgram> programs;
  for (int v = 0; v < n; ++v) {
    auto& program = programs[graph.nodes[v].warp];
    program.warp = graph.nodes[v].warp;
    auto& in = incoming[v];
    std::sort(in.begin(), in.end(), [&](int a, int b) {
      return graph.edges[a].from != graph.edges[b].from ? graph.edges[a].from < graph.edges[b].from
                                                        : graph.edges[a].kind < graph.edges[b].kind;
    });
    for (int i : in)
      program.ops.push_back(
          {WarpOp::Kind::Wait, v, i, graph.edges[i].channel, graph.edges[i].phase});
    program.ops.push_back({WarpOp::Kind::Call, v, -1, 0, 0});
    auto& out = outgoing[v];
    std::sort(out.begin(), out.end(), [&](int a, int b) {
      return graph.edges[a].to != graph.edges[b].to ? graph.edges[a].to < graph.edges[b].to
                                                    : graph.edges[a].kind < graph.edges[b].kind;
    });
    for (int i : out)
      program.ops.push_back(
          {WarpOp::Kind::Signal, v, i, graph.edges[i].channel, graph.edges[i].phase});
  }
  std::vector<WarpProgram> result;
  for (auto& [warp, program] : programs)
    result.push_back(std::move(program));
  return result;
}

} // namespace s2p::passes
