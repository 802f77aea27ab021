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
      << quoted(options.source_name) << ", " << plan.warps.size() << ", s2p_warp_ids, " << graph.channel_count
      << ", s2p_sites, " << graph.nodes.size() << "};\n";
}

void emit_warp(std::ostringstream& out, const passes::KernelPlan& plan, const WarpProgram& program) {
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
      out << "s2p_w.step(" << op.node << ", " << node.elements << ");\n";
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
    emit_warp(out, plan, program);
  }
  out << ");\n}";
  return out.str();
}

} // namespace s2p::emit
