#include "dump/dumps.h"

#include "ir/quoted.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace s2p::dump {

using namespace s2p::ir;
using json = nlohmann::ordered_json;

std::string_view name_of(DumpKind kind) {
  switch (kind) {
  case DumpKind::ScheduleTree:
    return "schedule-tree";
  case DumpKind::Cdfg:
    return "cdfg";
  case DumpKind::Cdrfg:
    return "cdrfg";
  case DumpKind::Channels:
    return "channels";
  case DumpKind::Warps:
    return "warps";
  case DumpKind::TileSteps:
    return "tile-steps";
  case DumpKind::Access:
    return "access";
  }
  return "?";
}

bool applies_to_tile_kernels(DumpKind kind) {
  return kind == DumpKind::TileSteps || kind == DumpKind::Access;
}

const std::vector<DumpKind>& all_dump_kinds() {
  static const std::vector<DumpKind> kinds = {DumpKind::ScheduleTree, DumpKind::Cdfg,
                                              DumpKind::Cdrfg,        DumpKind::Channels,
                                              DumpKind::Warps,        DumpKind::TileSteps,
                                              DumpKind::Access};
  return kinds;
}

std::optional<DumpKind> parse_dump_kind(std::string_view name) {
  for (DumpKind kind : all_dump_kinds())
    if (name_of(kind) == name)
      return kind;
  return std::nullopt;
}

namespace {

json location(const SourceLocation& loc) {
  return json{{"file", loc.file}, {"line", loc.line}, {"column", loc.column}};
}

json range_json(const Range& r) {
  return json::array({r.lo, r.hi});
}

std::string branch_kind(const ScheduleNode& node) {
  switch (node.kind) {
  case ScheduleNode::Kind::Loop: {
    const bool up = node.step > 0;
    std::string text = "loop " + node.name + " in " +
                       (up ? "[" + node.init.to_cpp() + "," + node.bound.to_cpp() + ")"
                           : "(" + node.bound.to_cpp() + "," + node.init.to_cpp() + "]");
    if (node.step != 1)
      text += " step " + std::to_string(node.step);
    return text;
  }
  case ScheduleNode::Kind::Function:
    return "function " + node.name;
  case ScheduleNode::Kind::Call:
    return "call " + node.call.callee;
  case ScheduleNode::Kind::If:
    return "if " + node.condition.text;
  default:
    return "block";
  }
}

const char* kind_name(ScheduleNode::Kind kind) {
  switch (kind) {
  case ScheduleNode::Kind::Kernel:
    return "kernel";
  case ScheduleNode::Kind::Loop:
    return "loop";
  case ScheduleNode::Kind::Function:
    return "function";
  case ScheduleNode::Kind::Block:
    return "block";
  case ScheduleNode::Kind::Call:
    return "call";
  case ScheduleNode::Kind::If:
    return "if";
  }
  return "?";
}

json tree_json(const Kernel& kernel, const ScheduleNode& node) {
  json out{{"kind", kind_name(node.kind)}};
  if (!node.name.empty())
    out["name"] = node.name;
  switch (node.kind) {
  case ScheduleNode::Kind::Loop:
    out["init"] = node.init.to_cpp();
    out["bound"] = node.bound.to_cpp();
    out["step"] = node.step;
    break;
  case ScheduleNode::Kind::Call: {
    out["callee"] = node.call.callee;
    out["warp"] = node.call.warp;
    out["text"] = node.call.text;
    json accesses = json::array();
    for (const auto& a : node.call.accesses) {
      json coords = json::array();
      for (const auto& c : a.coords)
        coords.push_back(c.to_cpp());
      json access{{"tensor", kernel.tensors[a.tensor].name}, {"mode", to_string(a.mode)}};
      if (a.whole)
        access["whole"] = true;
      else
        access["coords"] = coords;
      accesses.push_back(access);
    }
    out["accesses"] = accesses;
    if (!node.call.cost.empty())
      out["cost"] = node.call.cost;
    if (const auto& choice = node.call.warp_choice) // --auto-warps: which warp and why
      out["warp_choice"] = {{"role", to_string(choice->role)},
                            {"by", choice->annotated ? "annotation" : "auto-warps"},
                            {"estimated_cost", choice->cost},
                            {"rule", choice->rule}};
    break;
  }
  case ScheduleNode::Kind::If:
    out["condition"] = node.condition.text; // children: [then, else]
    break;
  default:
    break;
  }
  out["loc"] = location(node.loc);
  if (!node.children.empty()) {
    json children = json::array();
    for (const auto& child : node.children)
      children.push_back(tree_json(kernel, child));
    out["children"] = children;
  }
  return out;
}

json schedule_tree_json(const Kernel& kernel) {
  json pools = json::array();
  for (const auto& p : kernel.pools)
    pools.push_back({{"name", p.name},
                     {"element_type", p.element_type},
                     {"units", p.units},
                     {"loc", location(p.loc)}});
  json tensors = json::array();
  for (const auto& t : kernel.tensors) {
    json entry{{"name", t.name},
               {"kind", t.kind == TensorKind::Pool ? "pool" : "ref"},
               {"element_type", t.element_type}};
    if (t.kind == TensorKind::Pool) {
      entry["pool"] = kernel.pools[t.pool].name;
      entry["offset"] = t.offset.to_cpp();
      entry["shape"] = t.shape;
      entry["sub_size"] = t.sub_size;
    }
    entry["loc"] = location(t.loc);
    tensors.push_back(entry);
  }
  json kinds = json::array();
  int branches = 0;
  for (const auto& child : kernel.root.children) {
    ++branches;
    kinds.push_back(branch_kind(child));
  }
  return json{{"format", "seq2par.schedule-tree/1"},
              {"kernel", kernel.name},
              {"pools", pools},
              {"tensors", tensors},
              {"branches", branches},
              {"branch_kinds", kinds},
              {"tree", tree_json(kernel, kernel.root)}};
}

json labels_json(const Graph& graph, const Edge& e) {
  json out = json::array();
  for (const auto& label : e.labels) {
    json ranges = json::array();
    for (const auto& r : label.ranges)
      ranges.push_back(range_json(r));
    out.push_back({{"space", graph.spaces[label.space].name}, {"ranges", ranges}});
  }
  return out;
}

json pair_json(const Graph& graph, const Edge& e) {
  return json::array({graph.nodes[e.from].id, graph.nodes[e.to].id});
}

json nodes_json(const Kernel& kernel, const Graph& graph) {
  json nodes = json::array();
  for (const auto& node : graph.nodes) {
    json accesses = json::array();
    int pool_accesses = 0;
    const ResolvedAccess* pool_access = nullptr;
    for (const auto& a : node.accesses) {
      accesses.push_back({{"tensor", kernel.tensors[a.tensor].name},
                          {"space", graph.spaces[a.space].name},
                          {"mode", to_string(a.mode)},
                          {"coords", a.coords},
                          {"range", range_json(a.range)}});
      if (graph.spaces[a.space].is_pool) {
        ++pool_accesses;
        pool_access = &a;
      }
    }
    json entry{{"id", node.id}, {"warp", node.warp}, {"role", to_string(node.role)}};
    if (node.call && node.call->warp_choice)
      entry["warp_role"] = to_string(node.call->warp_choice->role);
    if (pool_accesses == 1)
      entry["pool_range"] = range_json(pool_access->range);
    entry["call"] = node.text;
    if (node.guard) // predicated: runs when this holds (its synchronization runs either way)
      entry["guard"] = node.guard->to_cpp();
    entry["accesses"] = accesses;
    entry["line"] = node.loc.line;
    nodes.push_back(entry);
  }
  return nodes;
}

json cdfg_json(const Kernel& kernel, const Graph& graph) {
  json spaces = json::array();
  for (const auto& s : graph.spaces)
    spaces.push_back(
        {{"name", s.name}, {"kind", s.is_pool ? "pool" : "tensor_ref"}, {"units", s.units}});
  json control = json::array(), data = json::array(), data_detail = json::array();
  // Control edges warp by warp, each warp's chain in program order.
  std::vector<const Edge*> chains;
  for (const auto& e : graph.edges)
    if (e.kind == EdgeKind::Control)
      chains.push_back(&e);
  std::sort(chains.begin(), chains.end(), [&](const Edge* a, const Edge* b) {
    return std::tie(graph.nodes[a->from].warp, a->from) <
           std::tie(graph.nodes[b->from].warp, b->from);
  });
  for (const Edge* e : chains)
    control.push_back(pair_json(graph, *e));
  for (const auto& e : graph.edges) {
    if (e.kind == EdgeKind::Data) {
      data.push_back(pair_json(graph, e));
      data_detail.push_back({{"from", graph.nodes[e.from].id},
                             {"to", graph.nodes[e.to].id},
                             {"labels", labels_json(graph, e)}});
    }
  }
  return json{
      {"format", "seq2par.cdfg/1"},         {"kernel", kernel.name},    {"spaces", spaces},
      {"nodes", nodes_json(kernel, graph)}, {"control_edges", control}, {"data_edges", data},
      {"data_edge_labels", data_detail}};
}

json cdrfg_json(const Kernel& kernel, const Region& region) {
  const Graph& graph = region.graph;
  json resource = json::array(), removed = json::array(), removed_detail = json::array();
  for (const auto& e : graph.edges) {
    if (e.kind == EdgeKind::Resource) {
      json entry{{"from", graph.nodes[e.from].id}, {"to", graph.nodes[e.to].id}};
      if (e.labels.size() == 1 && e.labels[0].ranges.size() == 1)
        entry["range"] = range_json(e.labels[0].ranges[0]);
      entry["labels"] = labels_json(graph, e);
      resource.push_back(entry);
    }
    if (e.redundant) {
      removed.push_back(pair_json(graph, e));
      json why{{"from", graph.nodes[e.from].id},
               {"to", graph.nodes[e.to].id},
               {"kind", to_string(e.kind)}};
      why["because"] = e.witness >= 0
                           ? graph.nodes[e.from].id + " reaches " + graph.nodes[e.witness].id +
                                 ", which runs before " + graph.nodes[e.to].id + " on warp " +
                                 std::to_string(graph.nodes[e.to].warp)
                           : std::string("a data edge already orders the pair");
      removed_detail.push_back(why);
    }
  }
  return json{{"format", "seq2par.cdrfg/1"},
              {"kernel", kernel.name},
              {"resource_edges", resource},
              {"removed_as_redundant", removed},
              {"removed_detail", removed_detail}};
}

// Listed by destination, then source, in program order (the order of the channel table in the warp-split design).
json channels_json(const Kernel& kernel, const Graph& graph) {
  std::vector<const Edge*> synced;
  for (const auto& e : graph.edges)
    if (graph.needs_sync(e))
      synced.push_back(&e);
  std::sort(synced.begin(), synced.end(), [](const Edge* a, const Edge* b) {
    return std::tie(a->to, a->from, a->kind) < std::tie(b->to, b->from, b->kind);
  });
  json channels = json::array();
  for (const Edge* e : synced)
    channels.push_back({{"from", graph.nodes[e->from].id},
                        {"to", graph.nodes[e->to].id},
                        {"kind", to_string(e->kind)},
                        {"channel", e->channel},
                        {"phase", e->phase}});
  return json{{"format", "seq2par.channels/1"},
              {"kernel", kernel.name},
              {"channels", channels},
              {"channel_count", graph.channel_count},
              {"data_channel_count", graph.data_channel_count}};
}

std::string op_text(const Graph& graph, const WarpOp& op) {
  switch (op.kind) {
  case WarpOp::Kind::Wait:
    return "wait " + std::to_string(op.channel);
  case WarpOp::Kind::Signal:
    return "signal " + std::to_string(op.channel);
  case WarpOp::Kind::Call:
    return graph.nodes[op.node].id;
  case WarpOp::Kind::Fence:
    return "fence";
  }
  return "?";
}

json warps_json(const Kernel& kernel, const Region& region, const passes::WarpSplit& plan) {
  json compact = json::object(), detail = json::array();
  const Graph& graph = region.graph;
  for (const auto& program : region.warps) {
    json ops = json::array(), detailed = json::array();
    for (const auto& op : program.ops) {
      ops.push_back(op_text(graph, op));
      json entry{{"op", op.kind == WarpOp::Kind::Wait     ? "wait"
                        : op.kind == WarpOp::Kind::Signal ? "signal"
                                                          : "call"},
                 {"node", graph.nodes[op.node].id}};
      if (op.kind == WarpOp::Kind::Call)
        entry["call"] = graph.nodes[op.node].text;
      else {
        entry["channel"] = op.channel;
        entry["phase"] = op.phase;
      }
      detailed.push_back(entry);
    }
    compact[std::to_string(program.warp)] = ops;
    detail.push_back({{"warp", program.warp}, {"ops", detailed}});
  }
  return json{{"format", "seq2par.warps/1"},
              {"kernel", kernel.name},
              {"warps", compact},
              {"programs", detail},
              {"channel_count", plan.channel_count}};
}

// --- DOT ---

std::string label_text(const Graph& graph, const Edge& e) {
  std::string text;
  for (const auto& l : e.labels)
    for (const auto& r : l.ranges)
      text += (text.empty() ? "" : " ") + graph.spaces[l.space].name + "[" + std::to_string(r.lo) +
              "," + std::to_string(r.hi) + ")";
  return text;
}

// --auto-warps: the role and who chose the warp ("load, auto-warps").
std::string warp_choice_text(const CallSite& call) {
  if (!call.warp_choice)
    return "";
  return std::string("\\n") + to_string(call.warp_choice->role) + ", " +
         (call.warp_choice->annotated ? "annotated" : "auto-warps");
}

void tree_dot(const ScheduleNode& node, std::ostringstream& out, int& counter, int parent,
              const char* edge_label = "") {
  const int me = counter++;
  std::string label = node.kind == ScheduleNode::Kind::Kernel ? "kernel " + node.name
                      : node.kind == ScheduleNode::Kind::Call
                          ? node.call.text + "\\nwarp " + std::to_string(node.call.warp) +
                                warp_choice_text(node.call)
                          : branch_kind(node);
  out << "  t" << me << " [label=\"" << ir::escaped(label) << "\""
      << (node.kind == ScheduleNode::Kind::Call ? ", shape=box" : "") << "];\n";
  if (parent >= 0)
    out << "  t" << parent << " -> t" << me
        << (*edge_label ? std::string(" [label=\"") + edge_label + "\"]" : "") << ";\n";
  for (std::size_t c = 0; c < node.children.size(); ++c)
    tree_dot(node.children[c], out, counter, me,
             node.kind != ScheduleNode::Kind::If ? "" : c == 0 ? "then" : "else");
}

std::string graph_dot(const Kernel& kernel, const Region& region, DumpKind kind) {
  const Graph& graph = region.graph;
  std::ostringstream out;
  out << "digraph \"" << ir::escaped(kernel.name)
      << "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::map<int, std::vector<int>> by_warp;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v)
    by_warp[graph.nodes[v].warp].push_back(v);
  for (const auto& [warp, nodes] : by_warp) {
    out << "  subgraph cluster_warp" << warp << " {\n    label=\"warp " << warp << "\";\n";
    for (int v : nodes)
      out << "    n" << v << " [label=\"" << ir::escaped(graph.nodes[v].id) << "\\n"
          << ir::escaped(graph.nodes[v].text)
          << (graph.nodes[v].guard ? "\\nif " + ir::escaped(graph.nodes[v].guard->to_cpp()) : "")
          << "\"];\n";
    out << "  }\n";
  }
  for (const auto& e : graph.edges) {
    if (kind == DumpKind::Cdfg && e.kind == EdgeKind::Resource)
      continue;
    std::string attrs;
    switch (e.kind) {
    case EdgeKind::Control:
      attrs = "color=gray40";
      break;
    case EdgeKind::Data:
      attrs = "color=blue, label=\"" + ir::escaped(label_text(graph, e)) + "\"";
      break;
    case EdgeKind::Resource:
      attrs = "color=red, label=\"" + ir::escaped(label_text(graph, e)) + "\"";
      break;
    }
    if (kind != DumpKind::Cdfg && e.redundant)
      attrs += ", style=dashed, constraint=false";
    if (kind == DumpKind::Channels && e.channel > 0)
      attrs += ", xlabel=\"ch " + std::to_string(e.channel) + "#" + std::to_string(e.phase) + "\"";
    out << "  n" << e.from << " -> n" << e.to << " [" << attrs << "];\n";
  }
  out << "}\n";
  return out.str();
}

std::string warps_dot(const Kernel& kernel, const Region& region) {
  const Graph& graph = region.graph;
  std::ostringstream out;
  out << "digraph \"" << ir::escaped(kernel.name)
      << "_warps\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  std::map<std::pair<int, std::int64_t>, std::string> signal_of, wait_of;
  for (const auto& program : region.warps) {
    out << "  subgraph cluster_warp" << program.warp << " {\n    label=\"warp " << program.warp
        << "\";\n";
    std::string previous;
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const auto& op = program.ops[i];
      // 'w', not "w": GCC bug 105651 (a false -Wrestrict)
      const std::string id = 'w' + std::to_string(program.warp) + "_" + std::to_string(i);
      const std::string text =
          op.kind == WarpOp::Kind::Call ? graph.nodes[op.node].text : op_text(graph, op);
      out << "    " << id << " [label=\"" << ir::escaped(text) << "\""
          << (op.kind == WarpOp::Kind::Call ? "" : ", shape=ellipse") << "];\n";
      if (!previous.empty())
        out << "    " << previous << " -> " << id << ";\n";
      previous = id;
      if (op.kind == WarpOp::Kind::Signal)
        signal_of[{op.channel, op.phase}] = id;
      if (op.kind == WarpOp::Kind::Wait)
        wait_of[{op.channel, op.phase}] = id;
    }
    out << "  }\n";
  }
  for (const auto& [key, waiter] : wait_of) {
    auto it = signal_of.find(key);
    if (it != signal_of.end())
      out << "  " << it->second << " -> " << waiter << " [color=red, style=dashed];\n";
  }
  out << "}\n";
  return out.str();
}

std::string template_name(const Graph& graph, const SymbolicLoop& loop, int b) {
  const std::string& id = graph.nodes[loop.node_of(b, 0)].id;
  return id.substr(0, id.find('@'));
}

std::string family_endpoint(const Graph& graph, const SymbolicLoop& loop, int b,
                            std::int64_t back) {
  return template_name(graph, loop, b) + "[" + loop.var +
         (back ? " - " + std::to_string(back) : "") + "]";
}

json loop_json(const Region& region) {
  const SymbolicLoop& loop = region.loop;
  json body = json::array();
  for (int b = 0; b < loop.body_size; ++b) {
    const Node& node = region.graph.nodes[loop.node_of(b, 0)];
    body.push_back({{"call", template_name(region.graph, loop, b)},
                    {"warp", node.warp},
                    {"line", node.loc.line},
                    {"text", node.call->text}});
  }
  json out{{"var", loop.var},   {"init", loop.init},     {"bound", loop.bound.to_cpp()},
           {"step", loop.step}, {"period", loop.period}, {"analysis_window", loop.window},
           {"body", body}};
  // A constant loop kept because its expansion did not fit a tile: its trip count.
  if (loop.constant_trips)
    out["constant_trips"] = *loop.constant_trips;
  return out;
}

json families_json(const Region& region) {
  const SymbolicLoop& loop = region.loop;
  json families = json::array();
  for (const auto& f : loop.families) {
    json entry{{"from", family_endpoint(region.graph, loop, f.from_template, f.distance)},
               {"to", family_endpoint(region.graph, loop, f.to_template, 0)},
               {"kind", to_string(f.kind)},
               {"distance", f.distance},
               {"channel", f.channel}};
    if (f.residue < 0) {
      entry["iterations"] = "all";
      entry["phase"] = "t - " + std::to_string(f.distance) + " + 1";
    } else {
      entry["iterations"] =
          "t % " + std::to_string(loop.period) + " == " + std::to_string(f.residue);
      entry["phase"] = "(t - " + std::to_string(f.distance + f.source_residue) + ") / " +
                       std::to_string(loop.period) + " + 1";
    }
    families.push_back(entry);
  }
  return families;
}

json symbolic_warps_json(const Region& region) {
  const SymbolicLoop& loop = region.loop;
  json warps = json::object();
  for (const auto& program : loop.warps) {
    json residues = json::array();
    for (const auto& ops : program.residues) {
      json list = json::array();
      for (const auto& op : ops) {
        if (op.kind == SymbolicOp::Kind::Call)
          list.push_back(template_name(region.graph, loop, op.body_call));
        else
          list.push_back(std::string(op.kind == SymbolicOp::Kind::Wait ? "wait " : "signal ") +
                         std::to_string(loop.families[op.family].channel));
      }
      residues.push_back(list);
    }
    warps[std::to_string(program.warp)] = residues;
  }
  return warps;
}

json region_json(DumpKind kind, const Kernel& kernel, const passes::WarpSplit& plan,
                 const Region& region) {
  const bool symbolic = region.kind == Region::Kind::SymbolicLoop;
  json out;
  switch (kind) {
  case DumpKind::ScheduleTree:
  case DumpKind::TileSteps: // tile kernels only (dump/tile_dumps.h)
  case DumpKind::Access:
    break;
  case DumpKind::Cdfg:
    out = cdfg_json(kernel, region.graph);
    break;
  case DumpKind::Cdrfg:
    out = cdrfg_json(kernel, region);
    break;
  case DumpKind::Channels:
    out =
        symbolic ? json{{"families", families_json(region)}} : channels_json(kernel, region.graph);
    break;
  case DumpKind::Warps:
    out = symbolic ? json{{"warps_by_residue", symbolic_warps_json(region)}}
                   : warps_json(kernel, region, plan);
    break;
  }
  out["region"] = symbolic ? "symbolic-loop" : "expanded";
  if (symbolic)
    out["loop"] = loop_json(region);
  return out;
}

} // namespace

json to_json(DumpKind kind, const Kernel& kernel, const passes::WarpSplit& plan) {
  if (kind == DumpKind::ScheduleTree)
    return schedule_tree_json(kernel);
  if (plan.single_expanded_region())
    return region_json(kind, kernel, plan, plan.regions[0]);
  json regions = json::array();
  for (const auto& region : plan.regions)
    regions.push_back(region_json(kind, kernel, plan, region));
  return json{{"format", "seq2par." + std::string(name_of(kind)) + "/1"},
              {"kernel", kernel.name},
              {"regions", regions},
              {"channel_count", plan.channel_count},
              {"channel_kinds", ir::channel_kind_letters(plan.channel_kinds)},
              {"fence_channel", plan.fence_channel}};
}

std::string to_dot(DumpKind kind, const Kernel& kernel, const passes::WarpSplit& plan) {
  if (kind == DumpKind::ScheduleTree) {
    std::ostringstream out;
    out << "digraph \"" << ir::escaped(kernel.name)
        << "_schedule_tree\" {\n  node [fontname=\"monospace\"];\n";
    int counter = 0;
    tree_dot(kernel.root, out, counter, -1);
    out << "}\n";
    return out.str();
  }
  std::string text;
  for (const auto& region : plan.regions) {
    if (kind == DumpKind::Warps && region.kind == Region::Kind::Expanded)
      text += warps_dot(kernel, region);
    else
      text += graph_dot(kernel, region, kind);
  }
  return text;
}

} // namespace s2p::dump
