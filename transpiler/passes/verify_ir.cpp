#include "passes/verify_ir.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

// Has `pass` run by the time `last` has? The enum lists the passes in run order.
bool has_run(WarpSplitPass pass, WarpSplitPass last) {
  return static_cast<int>(pass) <= static_cast<int>(last);
}

// Collects the problems of one plan, each prefixed with the region it is in.
class Problems {
public:
  void in_region(std::size_t region) { prefix_ = "region " + std::to_string(region) + ": "; }
  void add(const std::string& problem) { items_.push_back(prefix_ + problem); }
  std::vector<std::string> take() { return std::move(items_); }

private:
  std::string prefix_;
  std::vector<std::string> items_;
};

std::string edge_name(const Graph& graph, int index) {
  const Edge& e = graph.edges[static_cast<std::size_t>(index)];
  const auto id = [&](int node) {
    return node >= 0 && node < static_cast<int>(graph.nodes.size())
               ? graph.nodes[static_cast<std::size_t>(node)].id
               : "node " + std::to_string(node);
  };
  return std::string(to_string(e.kind)) + " edge " + std::to_string(index) + " (" + id(e.from) +
         " -> " + id(e.to) + ")";
}

// build-cdfg's invariants: nodes are call instances, edges run forward between them, labels
// name spaces. Returns false when an edge's ends are out of range (later checks index nodes).
bool check_graph_shape(const Graph& graph, Problems& problems) {
  const int nodes = static_cast<int>(graph.nodes.size());
  const int spaces = static_cast<int>(graph.spaces.size());
  for (const Node& node : graph.nodes) {
    if (!node.call)
      problems.add("node " + node.id + " is not the instance of a call");
    for (const ResolvedAccess& access : node.accesses)
      if (access.space < -1 || access.space >= spaces || access.range.lo > access.range.hi)
        problems.add("node " + node.id + " accesses space " + std::to_string(access.space) +
                     " [" + std::to_string(access.range.lo) + ", " +
                     std::to_string(access.range.hi) + "), which the graph does not have");
  }
  bool ends_valid = true;
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    const Edge& e = graph.edges[static_cast<std::size_t>(i)];
    if (e.from < 0 || e.to >= nodes || e.from >= e.to) {
      problems.add(edge_name(graph, i) + " does not run forward in program order between nodes");
      ends_valid = false;
    }
    for (const SpaceRanges& label : e.labels)
      for (const Range& range : label.ranges)
        if (label.space < 0 || label.space >= spaces || range.lo > range.hi)
          problems.add(edge_name(graph, i) + " is labelled with space " +
                       std::to_string(label.space) + " [" + std::to_string(range.lo) + ", " +
                       std::to_string(range.hi) + "), which the graph does not have");
  }
  return ends_valid;
}

void check_redundancy(const Graph& graph, WarpSplitPass last, Problems& problems) {
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    const Edge& e = graph.edges[static_cast<std::size_t>(i)];
    if (!e.redundant)
      continue;
    if (!has_run(WarpSplitPass::RemoveRedundantEdges, last)) {
      problems.add(edge_name(graph, i) + " is marked redundant before remove-redundant-edges");
      continue;
    }
    if (e.witness < 0)
      continue; // a duplicate of another edge
    if (e.witness >= e.to || graph.nodes[static_cast<std::size_t>(e.witness)].warp !=
                                 graph.nodes[static_cast<std::size_t>(e.to)].warp)
      problems.add(edge_name(graph, i) + " has witness " + std::to_string(e.witness) +
                   ", which is not a node of its destination's warp before the destination");
  }
}

ChannelKind channel_kind_of(EdgeKind kind) {
  return kind == EdgeKind::Data ? ChannelKind::Data : ChannelKind::Resource;
}

// A channel number the plan has, of the kind an edge of `kind` needs.
bool channel_fits(const WarpSplit& plan, int channel, EdgeKind kind) {
  return channel >= 1 && channel <= plan.channel_count &&
         static_cast<std::size_t>(channel) <= plan.channel_kinds.size() &&
         plan.channel_kinds[static_cast<std::size_t>(channel - 1)] == channel_kind_of(kind);
}

// allocate-channels' invariants on an expanded region: the synchronized edges, and only
// they, have channels of their kind, and a channel's waits expect its signals 1..k.
void check_channels(const WarpSplit& plan, const Graph& graph, WarpSplitPass last,
                    Problems& problems) {
  const bool allocated = has_run(WarpSplitPass::AllocateChannels, last);
  std::map<int, std::vector<std::int64_t>> phases_on;
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    const Edge& e = graph.edges[static_cast<std::size_t>(i)];
    if (!allocated || !graph.needs_sync(e)) {
      if (e.channel != 0)
        problems.add(edge_name(graph, i) + " has channel " + std::to_string(e.channel) +
                     (allocated ? ", but needs no synchronization" : " before allocate-channels"));
      continue;
    }
    if (!channel_fits(plan, e.channel, e.kind))
      problems.add(edge_name(graph, i) + " needs synchronization, but has channel " +
                   std::to_string(e.channel) + ", not one of the plan's " +
                   std::string(to_string(e.kind)) + " channels");
    phases_on[e.channel].push_back(e.phase);
  }
  for (auto& [channel, phases] : phases_on) {
    std::sort(phases.begin(), phases.end());
    for (std::size_t k = 0; k < phases.size(); ++k)
      if (phases[k] != static_cast<std::int64_t>(k) + 1) {
        problems.add("the waits on channel " + std::to_string(channel) +
                     " do not expect its signals 1.." + std::to_string(phases.size()));
        break;
      }
  }
}

// allocate-channels' invariants on a symbolic loop: families and per-residue programs.
void check_symbolic_loop(const WarpSplit& plan, const SymbolicLoop& loop, Problems& problems) {
  const auto is_body_call = [&](int b) { return b >= 0 && b < loop.body_size; };
  for (std::size_t f = 0; f < loop.families.size(); ++f) {
    const EdgeFamily& family = loop.families[f];
    if (!is_body_call(family.from_template) || !is_body_call(family.to_template) ||
        family.distance < 0)
      problems.add("edge family " + std::to_string(f) + " does not run from a body call to a " +
                   "body call of the same or a later iteration");
    if (!channel_fits(plan, family.channel, family.kind))
      problems.add("edge family " + std::to_string(f) + " has channel " +
                   std::to_string(family.channel) + ", not one of the plan's " +
                   std::string(to_string(family.kind)) + " channels");
  }
  for (const SymbolicLoop::Warp& warp : loop.warps) {
    const std::string name = "warp " + std::to_string(warp.warp);
    if (loop.period < 1 || warp.residues.size() != static_cast<std::size_t>(loop.period))
      problems.add(name + " has " + std::to_string(warp.residues.size()) +
                   " programs for a period of " + std::to_string(loop.period));
    for (const auto& ops : warp.residues)
      for (const SymbolicOp& op : ops)
        if (!is_body_call(op.body_call) ||
            (op.kind != SymbolicOp::Kind::Call &&
             (op.family < 0 || op.family >= static_cast<int>(loop.families.size()))))
          problems.add(name + " has an op on body call " + std::to_string(op.body_call) +
                       " and family " + std::to_string(op.family) + ", which the loop lacks");
  }
}

// A wait or signal of `program` on edge `op.edge`: the edge synchronized, the op at the right
// end of it, in that end's warp, on the edge's channel and phase.
bool sync_op_matches(const Graph& graph, const WarpProgram& program, const WarpOp& op) {
  if (op.edge < 0 || op.edge >= static_cast<int>(graph.edges.size()))
    return false;
  const Edge& e = graph.edges[static_cast<std::size_t>(op.edge)];
  const int end = op.kind == WarpOp::Kind::Wait ? e.to : e.from;
  return graph.needs_sync(e) && op.node == end &&
         graph.nodes[static_cast<std::size_t>(end)].warp == program.warp &&
         op.channel == e.channel && op.phase == e.phase;
}

// split-warps' invariants: each call once, in its warp, in program order; each synchronized
// edge one signal and one wait that match it.
void check_warp_programs(const Graph& graph, const std::vector<WarpProgram>& warps,
                         Problems& problems) {
  std::vector<int> calls(graph.nodes.size(), 0);
  std::vector<int> waits(graph.edges.size(), 0), signals(graph.edges.size(), 0);
  for (const WarpProgram& program : warps) {
    const std::string name = "warp " + std::to_string(program.warp);
    int previous_call = -1;
    for (const WarpOp& op : program.ops) {
      if (op.kind == WarpOp::Kind::Fence)
        continue;
      if (op.kind == WarpOp::Kind::Call) {
        if (op.node < 0 || op.node >= static_cast<int>(graph.nodes.size()) ||
            graph.nodes[static_cast<std::size_t>(op.node)].warp != program.warp ||
            op.node <= previous_call)
          problems.add(name + " calls node " + std::to_string(op.node) +
                       ", which is not its next call in program order");
        else
          ++calls[static_cast<std::size_t>(op.node)];
        previous_call = std::max(previous_call, op.node);
        continue;
      }
      const bool wait = op.kind == WarpOp::Kind::Wait;
      if (!sync_op_matches(graph, program, op)) {
        problems.add(name + (wait ? " waits" : " signals") + " on edge " +
                     std::to_string(op.edge) + " at node " + std::to_string(op.node) +
                     " with channel " + std::to_string(op.channel) + ", phase " +
                     std::to_string(op.phase) + ", which does not match the edge");
        continue;
      }
      ++(wait ? waits : signals)[static_cast<std::size_t>(op.edge)];
    }
  }
  for (std::size_t v = 0; v < calls.size(); ++v)
    if (calls[v] != 1)
      problems.add("node " + graph.nodes[v].id + " is called " + std::to_string(calls[v]) +
                   " times by the warp programs");
  for (int i = 0; i < static_cast<int>(graph.edges.size()); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (graph.needs_sync(graph.edges[k]) && (waits[k] != 1 || signals[k] != 1))
      problems.add(edge_name(graph, i) + " has " + std::to_string(signals[k]) + " signals and " +
                   std::to_string(waits[k]) + " waits");
  }
}

void check_region(const WarpSplit& plan, const Region& region, WarpSplitPass last,
                  Problems& problems) {
  if (!check_graph_shape(region.graph, problems))
    return;
  check_redundancy(region.graph, last, problems);
  if (region.kind == Region::Kind::SymbolicLoop) {
    if (has_run(WarpSplitPass::AllocateChannels, last))
      check_symbolic_loop(plan, region.loop, problems);
    return;
  }
  check_channels(plan, region.graph, last, problems);
  if (has_run(WarpSplitPass::SplitWarps, last))
    check_warp_programs(region.graph, region.warps, problems);
  else if (!region.warps.empty())
    problems.add("has warp programs before split-warps");
}

} // namespace

std::vector<std::string> verify_ir(const WarpSplit& plan, WarpSplitPass last) {
  Problems problems;
  if (has_run(WarpSplitPass::AllocateChannels, last) &&
      plan.channel_kinds.size() != static_cast<std::size_t>(plan.channel_count))
    problems.add(std::to_string(plan.channel_count) + " channels, but " +
                 std::to_string(plan.channel_kinds.size()) + " channel kinds");
  for (std::size_t r = 0; r < plan.regions.size(); ++r) {
    problems.in_region(r);
    check_region(plan, plan.regions[r], last, problems);
  }
  return problems.take();
}

} // namespace s2p::passes
