#include "passes/plan_symbolic_loop.h"

#include "passes/verify_sync.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

struct FamilyKey {
  int from, to;
  std::int64_t distance;
  EdgeKind kind;
  auto tie() const { return std::tie(kind, from, to, distance); }
  bool operator<(const FamilyKey& o) const { return tie() < o.tie(); }
};

FamilyKey key_of(const Graph& g, const Edge& e) {
  const Node& u = g.nodes[e.from];
  const Node& v = g.nodes[e.to];
  return {u.template_index, v.template_index, v.iteration - u.iteration, e.kind};
}

std::string describe(const Graph& g, const Edge& e) {
  return g.nodes[e.from].id + " -> " + g.nodes[e.to].id + " (" + to_string(e.kind) + ")";
}

// The families of a symbolic loop's steady state: per family, the residues (iteration
// modulo the period) its destinations occur in, and one instance's labels.
struct SteadyFamilies {
  std::map<FamilyKey, std::set<int>> residues;
  std::map<FamilyKey, std::vector<SpaceRanges>> labels;
  std::int64_t max_distance = 0;
};

// 1. Families from the steady state: destinations in one period mid-window.
SteadyFamilies steady_families(const SymbolicLoop& loop, const Graph& g) {
  SteadyFamilies found;
  const std::int64_t band_begin = loop.steady_start, band_end = band_begin + loop.period;
  for (const Edge& e : g.edges) {
    if (!g.needs_sync(e))
      continue;
    const std::int64_t t = g.nodes[e.to].iteration;
    if (t < band_begin || t >= band_end)
      continue;
    const FamilyKey key = key_of(g, e);
    found.residues[key].insert(static_cast<int>(t % loop.period));
    found.labels.try_emplace(key, e.labels);
    found.max_distance = std::max(found.max_distance, key.distance);
  }
  return found;
}

// 2. The families checked against the whole window: every synchronized edge is an instance,
//    and in the steady part every instance is an edge.
bool families_cover_window(const SymbolicLoop& loop, const Graph& g, const SteadyFamilies& found,
                           Diagnostics& diags) {
  const int P = loop.period;
  auto covers = [&](const FamilyKey& key, std::int64_t t) {
    auto it = found.residues.find(key);
    return it != found.residues.end() && it->second.contains(static_cast<int>(t % P));
  };
  for (const Edge& e : g.edges) {
    if (g.needs_sync(e) && !covers(key_of(g, e), g.nodes[e.to].iteration)) {
      diags.error(loop.loop->loc, "internal error: the dependencies of loop '" + loop.var +
                                      "' are not periodic (" + describe(g, e) +
                                      "); please report this");
      return false;
    }
  }
  std::set<std::tuple<int, int, EdgeKind>> window_edges;
  for (const Edge& e : g.edges)
    window_edges.insert({e.from, e.to, e.kind});
  for (const auto& [key, rs] : found.residues)
    for (std::int64_t t = found.max_distance; t < loop.window - found.max_distance; ++t)
      if (rs.contains(static_cast<int>(t % P)) &&
          !window_edges.contains(
              {loop.node_of(key.from, t - key.distance), loop.node_of(key.to, t), key.kind})) {
        diags.error(loop.loop->loc, "internal error: loop '" + loop.var +
                                        "': a dependency of the steady state is "
                                        "missing in iteration " +
                                        std::to_string(t) + "; please report this");
        return false;
      }
  return true;
}

// 3. Channels: data families first. A family present in every residue is one channel
//    signalled every iteration; otherwise one channel per residue.
void allocate_family_channels(SymbolicLoop& loop, const SteadyFamilies& found, int first_channel,
                              std::vector<ChannelKind>& channel_kinds) {
  loop.families.clear();
  for (EdgeKind kind : {EdgeKind::Data, EdgeKind::Resource}) {
    for (const auto& [key, rs] : found.residues) {
      if (key.kind != kind)
        continue;
      EdgeFamily family{key.from, key.to, key.distance, key.kind, -1, 0, 0, found.labels.at(key)};
      if (static_cast<int>(rs.size()) == loop.period) {
        family.channel = first_channel + static_cast<int>(loop.families.size());
        loop.families.push_back(family);
        continue;
      }
      for (int r : rs) {
        family.residue = r;
        family.source_residue =
            static_cast<int>(((r - key.distance) % loop.period + loop.period) % loop.period);
        family.channel = first_channel + static_cast<int>(loop.families.size());
        loop.families.push_back(family);
      }
    }
  }
  for (const auto& family : loop.families)
    channel_kinds.push_back(family.kind == EdgeKind::Data ? ChannelKind::Data
                                                          : ChannelKind::Resource);
}

// The ops of body call `b` in an iteration of residue `s`: waits (sources in program order),
// the call, signals (destinations in program order).
std::vector<SymbolicOp> ops_of_call(const SymbolicLoop& loop, int b, int s) {
  const int P = loop.period;
  std::vector<int> in, out;
  for (int f = 0; f < static_cast<int>(loop.families.size()); ++f) {
    const auto& family = loop.families[f];
    if (family.to_template == b && (family.residue < 0 || family.residue == s))
      in.push_back(f);
    if (family.from_template == b &&
        (family.residue < 0 || ((s + family.distance) % P + P) % P == family.residue))
      out.push_back(f);
  }
  std::sort(in.begin(), in.end(), [&](int x, int y) {
    const auto& a = loop.families[x];
    const auto& c = loop.families[y];
    return std::make_tuple(-a.distance, a.from_template, a.kind) <
           std::make_tuple(-c.distance, c.from_template, c.kind);
  });
  std::sort(out.begin(), out.end(), [&](int x, int y) {
    const auto& a = loop.families[x];
    const auto& c = loop.families[y];
    return std::make_tuple(a.distance, a.to_template, a.kind) <
           std::make_tuple(c.distance, c.to_template, c.kind);
  });
  std::vector<SymbolicOp> ops;
  for (int f : in)
    ops.push_back({SymbolicOp::Kind::Wait, b, f});
  ops.push_back({SymbolicOp::Kind::Call, b, -1});
  for (int f : out)
    ops.push_back({SymbolicOp::Kind::Signal, b, f});
  return ops;
}

// 4. Per-warp programs, one per residue of the period.
void write_warp_programs(SymbolicLoop& loop, const Graph& g) {
  std::map<int, SymbolicLoop::Warp> programs;
  for (int b = 0; b < loop.body_size; ++b) {
    const int warp = g.nodes[b].warp;
    auto& program = programs[warp];
    program.warp = warp;
    program.residues.resize(static_cast<std::size_t>(loop.period));
    for (int s = 0; s < loop.period; ++s) {
      const std::vector<SymbolicOp> ops = ops_of_call(loop, b, s);
      auto& residue = program.residues[static_cast<std::size_t>(s)];
      residue.insert(residue.end(), ops.begin(), ops.end());
    }
  }
  loop.warps.clear();
  for (auto& [warp, program] : programs)
    loop.warps.push_back(std::move(program));
}

} // namespace

bool plan_symbolic_loop(Region& region, int first_channel, std::vector<ChannelKind>& channel_kinds,
                        Diagnostics& diags) {
  SymbolicLoop& loop = region.loop;
  const Graph& g = region.graph;
  const SteadyFamilies found = steady_families(loop, g);
  if (found.max_distance > loop.window / 4) {
    diags.error(loop.loop->loc,
                "a dependency in loop '" + loop.var + "' spans " +
                    std::to_string(found.max_distance) +
                    " iterations, too far for a loop with a run-time trip count (at most " +
                    std::to_string(loop.window / 4) + ")");
    return false;
  }
  if (!families_cover_window(loop, g, found, diags))
    return false;
  allocate_family_channels(loop, found, first_channel, channel_kinds);
  write_warp_programs(loop, g);
  // 5. Verify what will be emitted, for trip counts that exercise prologue, steady state
  //    and epilogue.
  const std::int64_t P = loop.period, W = loop.window;
  for (std::int64_t trips : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, P, P + 1, W}) {
    const auto instance = instantiate_symbolic_loop(region, trips);
    const auto problems = verify_sync(instance.graph, instance.warps);
    if (!problems.empty()) {
      diags.error(loop.loop->loc, "internal error: the warp split of loop '" + loop.var +
                                      "' is unsound for " + std::to_string(trips) +
                                      " iterations (" + problems.front() + "); please report this");
      return false;
    }
  }
  return true;
}

InstantiatedLoop instantiate_symbolic_loop(const Region& region, std::int64_t trips) {
  const SymbolicLoop& loop = region.loop;
  const Graph& window = region.graph;
  InstantiatedLoop out;
  out.graph.spaces = window.spaces;
  const int nodes = static_cast<int>(trips) * loop.body_size;
  out.graph.nodes.assign(window.nodes.begin(), window.nodes.begin() + nodes);
  std::map<int, int> last_of_warp;
  for (int n = 0; n < nodes; ++n) {
    auto [it, first] = last_of_warp.try_emplace(out.graph.nodes[n].warp, n);
    if (!first) {
      out.graph.edges.push_back({it->second, n, EdgeKind::Control, {}});
      it->second = n;
    }
  }
  for (const auto& family : loop.families) {
    for (std::int64_t t = 0; t < trips; ++t) {
      if (family.residue >= 0 && t % loop.period != family.residue)
        continue;
      if (t - family.distance < 0)
        continue;
      Edge e{loop.node_of(family.from_template, t - family.distance),
             loop.node_of(family.to_template, t), family.kind, family.labels};
      e.channel = family.channel;
      e.phase = family.phase_for_destination(t, loop.period);
      out.graph.edges.push_back(e);
    }
  }
  for (const auto& program : loop.warps) {
    WarpProgram concrete;
    concrete.warp = program.warp;
    for (std::int64_t t = 0; t < trips; ++t) {
      for (const auto& op : program.residues[t % loop.period]) {
        const int node = loop.node_of(op.body_call, t);
        if (op.kind == SymbolicOp::Kind::Call) {
          concrete.ops.push_back({WarpOp::Kind::Call, node, -1, 0, 0});
          continue;
        }
        const auto& family = loop.families[op.family];
        const std::int64_t destination =
            op.kind == SymbolicOp::Kind::Wait ? t : t + family.distance;
        concrete.ops.push_back(
            {op.kind == SymbolicOp::Kind::Wait ? WarpOp::Kind::Wait : WarpOp::Kind::Signal, node,
             -1, family.channel, family.phase_for_destination(destination, loop.period)});
      }
    }
    out.warps.push_back(std::move(concrete));
  }
  return out;
}

} // namespace s2p::passes
