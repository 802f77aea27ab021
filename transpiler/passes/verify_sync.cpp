#include "passes/verify_sync.h"

#include "ir/interval_map.h"
#include "passes/reachability.h"

#include <map>
#include <set>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

// The graph of what the generated code enforces: program order per warp plus the
// synchronized edges.
Graph enforced_graph(const Graph& graph) {
  Graph enforced;
  enforced.nodes = graph.nodes;
  enforced.spaces = graph.spaces;
  for (const auto& e : graph.edges)
    if (e.kind == EdgeKind::Control || graph.needs_sync(e))
      enforced.edges.push_back(e);
  return enforced;
}

// Each access is checked against the accesses it conflicts with most recently (the last
// writer of the units it reads; the readers since, or the last writer, of the units it
// writes); happens-before is transitive, so that covers every conflicting pair.
void check_races(const Graph& graph, std::vector<std::string>& problems) {
  const Graph enforced = enforced_graph(graph);
  const Reachability reach(enforced);
  struct Holders {
    int writer = -1;
    std::vector<int> readers;
  };
  std::vector<IntervalMap<Holders>> units(graph.spaces.size());
  std::set<std::pair<int, int>> reported;
  auto require = [&](int before, int after) {
    if (before < 0 || before == after || graph.nodes[before].warp == graph.nodes[after].warp)
      return;
    if (reach.reaches(before, after) || !reported.insert({before, after}).second)
      return;
    const Node& a = graph.nodes[before];
    const Node& b = graph.nodes[after];
    problems.push_back("race: " + a.id + " (" + a.text + ", warp " + std::to_string(a.warp) +
                       ") and " + b.id + " (" + b.text + ", warp " + std::to_string(b.warp) +
                       ") touch the same units but are not ordered");
  };
  for (int n = 0; n < static_cast<int>(graph.nodes.size()); ++n) {
    for (const auto& access : graph.nodes[n].accesses) {
      if (!reads(access.mode))
        continue;
      units[access.space].for_each(access.range.lo, access.range.hi,
                                   [&](std::int64_t, std::int64_t, Holders& h) {
                                     require(h.writer, n);
                                     h.readers.push_back(n);
                                   });
    }
    for (const auto& access : graph.nodes[n].accesses) {
      if (!writes(access.mode))
        continue;
      units[access.space].for_each(access.range.lo, access.range.hi,
                                   [&](std::int64_t, std::int64_t, Holders& h) {
                                     require(h.writer, n);
                                     for (int reader : h.readers)
                                       require(reader, n);
                                   });
      units[access.space].assign(access.range.lo, access.range.hi, Holders{n, {}});
    }
  }
}

void check_channels(const Graph& graph, const std::vector<WarpProgram>& warps,
                    std::vector<std::string>& problems) {
  std::map<int, std::int64_t> count;
  std::vector<std::size_t> pc(warps.size(), 0);
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (std::size_t w = 0; w < warps.size(); ++w) {
      while (pc[w] < warps[w].ops.size()) {
        const WarpOp& op = warps[w].ops[pc[w]];
        if ((op.kind == WarpOp::Kind::Wait || op.kind == WarpOp::Kind::Fence) &&
            count[op.channel] < op.phase)
          break;
        if (op.kind == WarpOp::Kind::Signal) {
          const std::int64_t k = ++count[op.channel];
          if (k != op.phase)
            problems.push_back("channel " + std::to_string(op.channel) + ": signal #" +
                               std::to_string(k) + " comes from " + graph.nodes[op.node].id +
                               ", whose waiter expects #" + std::to_string(op.phase));
        }
        ++pc[w];
        progressed = true;
      }
    }
  }
  for (std::size_t w = 0; w < warps.size(); ++w) {
    if (pc[w] == warps[w].ops.size())
      continue;
    const WarpOp& op = warps[w].ops[pc[w]];
    problems.push_back("deadlock: warp " + std::to_string(warps[w].warp) + " waits on channel " +
                       std::to_string(op.channel) + " for signal #" + std::to_string(op.phase) +
                       " before " + graph.nodes[op.node].id + " (channel has " +
                       std::to_string(count[op.channel]) + ")");
  }
}

} // namespace

std::vector<std::string> verify_sync(const Graph& graph, const std::vector<WarpProgram>& warps) {
  std::vector<std::string> problems;
  check_races(graph, problems);
  check_channels(graph, warps, problems);
  return problems;
}

} // namespace s2p::passes
