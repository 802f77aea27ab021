#include "emit/warp_code.h"

#include <sstream>

namespace s2p::emit {

using namespace s2p::ir;

namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string describe_edge(const Graph& graph, const Edge& e) {
  std::string text = graph.nodes[e.from].id + " -> " + graph.nodes[e.to].id + ": " + to_string(e.kind);
  for (const auto& label : e.labels)
    for (const auto& r : label.ranges) {
      text += " " + graph.spaces[label.space].name;
      text += graph.spaces[label.space].is_pool ? "[" + std::to_string(r.lo) + "," + std::to_string(r.hi) + ")"
                                                : "[" + std::to_string(r.lo) + "]";
    }
  return text;
}

// The cycles a call costs on the simulator: its S2P_COST expression evaluated on its
// arguments, or by default the elements it touches.
std::string cost_text(const Kernel& kernel, const Node& node) {
  const CallSite& call = *node.call;
  if (!call.cost.empty() && call.parameters.size() == node.cost_arguments.size()) {
    std::string params, args;
    for (std::size_t i = 0; i < call.parameters.size(); ++i) {
      params += (i ? ", " : "") + call.parameters[i];
      args += (i ? ", " : "") + node.cost_arguments[i];
    }
    return "[&](" + params + ") -> std::int64_t { return static_cast<std::int64_t>(" + call.cost + "); }(" + args + ")";
  }
  std::string text = std::to_string(node.elements);
  for (const auto& access : node.accesses) {
    const Tensor& tensor = kernel.tensors[access.tensor];
    if (tensor.kind != TensorKind::Ref) continue;
    const std::string size = "static_cast<std::int64_t>(" + tensor.name + ".size())";
    text += " + " + (access.range.hi - access.range.lo > 1 ? "static_cast<std::int64_t>(" + tensor.name + ".count()) * " + size : size);
  }
  return text;
}

std::int64_t pool_bytes(const Kernel& kernel) {
  std::int64_t bytes = 0;
  for (const auto& pool : kernel.pools) bytes += pool.units * pool.element_bytes;
  return bytes;
}

void emit_tables(std::ostringstream& out, const Kernel& kernel, const passes::KernelPlan& plan,
                 const EmitOptions& options) {
  const Graph& graph = plan.graph;
  out << "static const int s2p_warp_ids[] = {";
  for (std::size_t i = 0; i < plan.warps.size(); ++i) out << (i ? ", " : "") << plan.warps[i].warp;
  out << "};\n";
  out << "static const s2p::rt::site s2p_sites[] = {";
  for (std::size_t v = 0; v < graph.nodes.size(); ++v)
    out << (v ? ", " : "") << "{" << quoted(graph.nodes[v].id) << ", " << graph.nodes[v].loc.line << "}";
  out << "};\n";
  out << "static const s2p::rt::kernel_info s2p_kernel = {" << quoted(kernel.name) << ", "
      << quoted(options.source_name) << ", " << plan.warps.size() << ", s2p_warp_ids, " << graph.channel_count << ", "
      << graph.data_channel_count << ", 0, s2p_sites, " << graph.nodes.size() << ", " << pool_bytes(kernel) << "};\n";
}

void emit_warp(std::ostringstream& out, const Kernel& kernel, const passes::KernelPlan& plan, const WarpProgram& program) {
  const Graph& graph = plan.graph;
  out << "[&](s2p::rt::warp& s2p_w) { // warp " << program.warp << "\n";
  for (const auto& op : program.ops) {
    const Node& node = graph.nodes[op.node];
    switch (op.kind) {
    case WarpOp::Kind::Wait:
      out << "s2p_w.wait(" << op.channel << ", " << op.phase << ", " << op.node << "); // "
          << describe_edge(graph, graph.edges[op.edge]) << "\n";
      break;
    case WarpOp::Kind::Call:
      out << node.text << "; // " << node.id << ", line " << node.loc.line << "\n";
      out << "s2p_w.step(" << op.node << ", " << cost_text(kernel, node) << ");\n";
      break;
    case WarpOp::Kind::Signal:
      out << "s2p_w.signal(" << op.channel << "); // " << describe_edge(graph, graph.edges[op.edge]) << "\n";
      break;
    }
  }
  out << "}";
}

} // namespace

std::string emit_kernel_body(const Kernel& kernel, const passes::KernelPlan& plan, const EmitOptions& options) {
  std::ostringstream out;
  out << "{\n";
  out << "// seq2par: kernel '" << kernel.name << "' (" << options.source_name << ":" << kernel.loc.line << ") as "
      << plan.warps.size() << " cooperative warp" << (plan.warps.size() == 1 ? "" : "s") << ", "
      << plan.graph.channel_count << " synchronization channel" << (plan.graph.channel_count == 1 ? "" : "s")
      << ", " << plan.graph.nodes.size() << " intrinsic call" << (plan.graph.nodes.size() == 1 ? "" : "s") << ".\n";
  for (const auto& statement : kernel.preamble) out << statement << "\n";
  for (const auto& helper : kernel.inlined_helper_refs) out << "(void)" << helper << "; // inlined below\n";
  if (plan.warps.empty()) {
    out << "}";
    return out.str();
  }
  emit_tables(out, kernel, plan, options);
  out << "s2p::rt::launch(s2p_kernel";
  for (const auto& program : plan.warps) {
    out << ",\n";
    emit_warp(out, kernel, plan, program);
  }
  out << ");\n}";
  return out.str();
}

} // namespace s2p::emit
