#include "passes/build_cdrfg.h"

#include "ir/interval_map.h"
#include "passes/build_cdfg.h"

#include <algorithm>
#include <map>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

struct Holders {
  int writer = -1;
  std::vector<int> readers;
};

} // namespace

void add_resource_edges(Graph& graph) {
  std::vector<IntervalMap<Holders>> holders(graph.spaces.size(), IntervalMap<Holders>());
  std::map<std::pair<int, int>, int> resource_edges;
  std::vector<Edge> added;
  auto edge_for = [&](int from, int to) -> Edge& {
    auto [it, inserted] = resource_edges.try_emplace({from, to}, static_cast<int>(added.size()));
    if (inserted)
      added.push_back({from, to, EdgeKind::Resource, {}});
    return added[it->second];
  };
  for (int n = 0; n < static_cast<int>(graph.nodes.size()); ++n) {
    const auto& accesses = graph.nodes[n].accesses;
    for (const auto& access : accesses) {
      if (!reads(access.mode))
        continue;
      holders[access.space].for_each(
          access.range.lo, access.range.hi, [&](std::int64_t, std::int64_t, Holders& h) {
            if (std::find(h.readers.begin(), h.readers.end(), n) == h.readers.end())
              h.readers.push_back(n);
          });
    }
    for (const auto& access : accesses) {
      if (!writes(access.mode))
        continue;
      holders[access.space].for_each(access.range.lo, access.range.hi,
                                     [&](std::int64_t lo, std::int64_t hi, Holders& h) {
                                       if (!h.readers.empty()) {
                                         for (int reader : h.readers)
                                           if (reader != n)
                                             add_label(edge_for(reader, n), access.space, {lo, hi});
                                       } else if (h.writer >= 0 && h.writer != n) {
                                         add_label(edge_for(h.writer, n), access.space, {lo, hi});
                                       }
                                     });
      holders[access.space].assign(access.range.lo, access.range.hi, Holders{n, {}});
    }
  }
  // Program order of the writer, then of the holder: the order of the worked example's CDRFG
  // (tests/golden/fig3-pipeline.json).
  // (from, to) pairs are unique here, so the order is total.
  std::sort(added.begin(), added.end(), [](const Edge& a, const Edge& b) {
    return a.to != b.to ? a.to < b.to : a.from < b.from;
  });
  graph.edges.insert(graph.edges.end(), added.begin(), added.end());
}

} // namespace s2p::passes
