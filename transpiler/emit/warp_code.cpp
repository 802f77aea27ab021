#include "emit/warp_code.h"

#include "ir/quoted.h"
#include "ir/call_text.h"
#include "passes/loop_period.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::emit {

using namespace s2p::ir;

namespace {

using ir::quoted;

std::string ranges_text(const Graph& graph, const std::vector<SpaceRanges>& labels,
                        bool with_ranges) {
  std::string text;
  for (const auto& label : labels) {
    const Space& space = graph.spaces[label.space];
    if (!with_ranges) {
      text += " " + space.name;
      continue;
    }
    for (const auto& r : label.ranges) {
      text += " " + space.name;
      // '[', not "[": GCC bug 105651 (a false -Wrestrict)
      text += space.is_pool ? '[' + std::to_string(r.lo) + "," + std::to_string(r.hi) + ")"
                            : '[' + std::to_string(r.lo) + "]";
    }
  }
  return text;
}

std::string describe_edge(const Graph& graph, const Edge& e) {
  return graph.nodes[e.from].id + " -> " + graph.nodes[e.to].id + ": " + to_string(e.kind) +
         ranges_text(graph, e.labels, true);
}

std::int64_t pool_bytes(const Kernel& kernel) {
  std::int64_t bytes = 0;
  for (const auto& pool : kernel.pools)
    bytes += pool.bytes();
  return bytes;
}

// A call of a symbolic loop's body as written for iterations with one residue: the loop
// variable stays a variable, `i % m` folds to its value where the residue fixes it.
struct SymbolicCall {
  CallSite site;
  std::string text;
};

SymbolicCall symbolic_call(const SymbolicLoop& loop, const Node& representative, int residue) {
  Bindings env;
  for (const auto& [name, value] : representative.env.entries())
    if (name != loop.var)
      env.bind(name, value);
  SymbolicCall out{*representative.call, ""};
  const std::int64_t first = loop.init + residue * loop.step;
  for (auto& hole : out.site.holes)
    if (hole.value)
      hole.value = passes::fold_residues(hole.value->substitute(env), loop.var, first,
                                         loop.period * loop.step);
  out.text = render_call(out.site, Bindings{});
  return out;
}

// The guard of a symbolic loop's body call in iterations with one residue: `k % 2 == 0`
// folds to a constant where the residue fixes it.
std::optional<Condition> symbolic_guard(const SymbolicLoop& loop, const Node& representative,
                                        int residue) {
  if (!representative.guard)
    return std::nullopt;
  const std::int64_t first = loop.init + residue * loop.step;
  Condition guard = representative.guard->map_operands([&](const Expr& e) {
    return passes::fold_residues(e, loop.var, first, loop.period * loop.step);
  });
  guard.text = representative.guard->text;
  return guard;
}

// The cycles a call costs on the simulator: its S2P_COST expression evaluated on its
// arguments, or by default the elements it touches.
std::string cost_text(const Kernel& kernel, const Node& node, const CallSite& site,
                      const Bindings& env, const std::vector<std::string>* arguments) {
  if (!site.cost.empty() && site.parameters.size() == site.arguments.size()) {
    std::string params, args;
    for (std::size_t i = 0; i < site.parameters.size(); ++i) {
      const auto& [offset, length] = site.arguments[i];
      params += (i ? ", [[maybe_unused]] " : "[[maybe_unused]] ") + site.parameters[i];
      args += (i ? ", " : "") +
              (arguments ? (*arguments)[i] : render_span(site, env, offset, offset + length));
    }
    return "[&](" + params + ") -> std::int64_t { return static_cast<std::int64_t>(" + site.cost +
           "); }(" + args + ")";
  }
  std::string text = std::to_string(node.elements);
  for (std::size_t i = 0; i < node.accesses.size(); ++i) {
    const ResolvedAccess& access = node.accesses[i];
    const Tensor& tensor = kernel.tensors[access.tensor];
    if (tensor.kind != TensorKind::Ref)
      continue;
    if (tensor.tile_block) { // a task's tile block: its elements, known when the task runs
      const int argument = i < site.accesses.size() ? site.accesses[i].argument : -1;
      if (argument < 0 || static_cast<std::size_t>(argument) >= site.arguments.size())
        continue;
      const auto& [offset, length] = site.arguments[static_cast<std::size_t>(argument)];
      text += " + static_cast<std::int64_t>(s2p::rt::block_elements(" +
              (arguments ? (*arguments)[static_cast<std::size_t>(argument)]
                         : render_span(site, env, offset, offset + length)) +
              "))";
      continue;
    }
    const std::string size = "static_cast<std::int64_t>(" + tensor.name + ".size())";
    text += " + " + (access.range.hi - access.range.lo > 1
                         ? "static_cast<std::int64_t>(" + tensor.name + ".count()) * " + size
                         : size);
  }
  return text;
}

class BodyWriter {
public:
  BodyWriter(const Kernel& kernel, const passes::WarpSplit& plan, const EmitOptions& options)
      : kernel_(kernel), plan_(plan), options_(options) {
    for (std::size_t r = 0; r < plan.regions.size(); ++r) {
      const Region& region = plan.regions[r];
      if (region.kind == Region::Kind::Expanded) {
        for (std::size_t v = 0; v < region.graph.nodes.size(); ++v) {
          site_of_[{r, static_cast<int>(v)}] = static_cast<int>(sites_.size());
          sites_.push_back({region.graph.nodes[v].id, region.graph.nodes[v].loc.line});
        }
      } else {
        for (int b = 0; b < region.loop.body_size; ++b) {
          const Node& node = region.graph.nodes[region.loop.node_of(b, 0)];
          site_of_[{r, b}] = static_cast<int>(sites_.size());
          sites_.push_back({template_name(node) + "[" + region.loop.var + "]", node.loc.line});
        }
      }
    }
  }

  std::string write() {
    out_ << "{\n";
    out_ << "// seq2par: kernel '" << kernel_.name << "' (" << options_.source_name << ":"
         << kernel_.loc.line << ") as " << plan_.warps.size() << " cooperative warp"
         << (plan_.warps.size() == 1 ? "" : "s") << ", " << plan_.channel_count
         << " synchronization channel" << (plan_.channel_count == 1 ? "" : "s") << ", "
         << plan_.call_count() << " intrinsic call" << (plan_.call_count() == 1 ? "" : "s")
         << ".\n";
    for (const auto& statement : kernel_.preamble)
      out_ << statement << "\n";
    for (const auto& [expression, why] : kernel_.kept_references)
      out_ << "(void)" << expression << "; // " << why << "\n";
    write_tensor_ref_check();
    for (std::size_t r = 0; r < plan_.regions.size(); ++r) {
      const Region& region = plan_.regions[r];
      if (region.kind != Region::Kind::SymbolicLoop)
        continue;
      out_ << "const std::int64_t " << trips_name(r) << " = s2p::rt::trip_count("
           << region.loop.init << ", " << region.loop.bound.to_cpp() << ", " << region.loop.step
           << "); // loop '" << region.loop.var << "', line " << region.loop.loop->loc.line << "\n";
      write_loop_range_check(r, region.loop);
    }
    write_tables();
    out_ << "s2p::rt::launch(s2p_kernel";
    for (int warp : plan_.warps) {
      out_ << ",\n[&](s2p::rt::warp& s2p_w) { // warp " << warp << "\n";
      for (std::size_t r = 0; r < plan_.regions.size(); ++r) {
        if (r > 0)
          write_fence(r);
        const Region& region = plan_.regions[r];
        if (region.kind == Region::Kind::Expanded)
          write_expanded(r, region, warp);
        else
          write_symbolic(r, region, warp);
      }
      out_ << "}";
    }
    out_ << ");\n}";
    return out_.str();
  }

private:
  static std::string template_name(const Node& node) {
    return node.id.substr(0, node.id.find('@'));
  }
  static std::string trips_name(std::size_t region) {
    return "s2p_trips_" + std::to_string(region);
  }

  // A table of the kernel's sites or accesses, as an initializer. libFormat lays out one
  // initializer in time that grows much faster than its length (an expanded loop of 4,000
  // calls: 30 of the 35 seconds the transpile took), so a long table is written one entry per
  // line and left as written (`clang-format off`); filling it by statements instead would cost
  // the C++ compiler more than libFormat saves.
  void write_table(std::string_view type, std::string_view name,
                   const std::vector<std::string>& entries) {
    constexpr std::size_t kFormattedEntries = 64;
    const bool laid_out = entries.size() <= kFormattedEntries;
    if (!laid_out)
      out_ << "// clang-format off\n";
    out_ << "static const " << type << " " << name << "[] = {";
    for (std::size_t i = 0; i < entries.size(); ++i)
      out_ << (laid_out ? (i ? ", " : "") : "\n    ") << entries[i] << (laid_out ? "" : ",");
    out_ << (laid_out ? "};\n" : "\n};\n// clang-format on\n");
  }

  void write_tables() {
    out_ << "static const int s2p_warp_ids[] = {";
    for (std::size_t i = 0; i < plan_.warps.size(); ++i)
      out_ << (i ? ", " : "") << plan_.warps[i];
    out_ << "};\n";
    std::vector<std::string> sites;
    for (const auto& [label, line] : sites_)
      sites.push_back("{" + quoted(label) + ", " + std::to_string(line) + "}");
    write_table("s2p::rt::site", "s2p_sites", sites);
    const std::vector<std::string> accesses = site_accesses();
    const std::vector<Space>& spaces =
        plan_.regions.empty() ? std::vector<Space>{} : plan_.regions.front().graph.spaces;
    if (!accesses.empty()) {
      out_ << "static const char* const s2p_spaces[] = {";
      for (std::size_t i = 0; i < spaces.size(); ++i)
        out_ << (i ? ", " : "") << quoted(spaces[i].name);
      out_ << "};\n";
      write_table("s2p::rt::site_access", "s2p_accesses", accesses);
    }
    out_ << "static const s2p::rt::kernel_info s2p_kernel = {" << quoted(kernel_.name) << ", "
         << quoted(options_.source_name) << ", " << plan_.warps.size() << ", s2p_warp_ids, "
         << plan_.channel_count << ", " << quoted(ir::channel_kind_letters(plan_.channel_kinds)) << ", s2p_sites, "
         << sites_.size() << ", " << pool_bytes(kernel_);
    if (!accesses.empty())
      out_ << ", s2p_spaces, " << spaces.size() << ", s2p_accesses, " << accesses.size();
    out_ << "};\n";
  }

  // The declared ranges each site touches, for the sim backend's race check: the k-th
  // execution of a site, k % period == residue, touches [lo, hi) + (k / period) * stride.
  static std::string access_entry(int site, const ResolvedAccess& a, Range range,
                                  std::int64_t stride, int period, int residue) {
    return "{" + std::to_string(site) + ", " + std::to_string(a.space) + ", " +
           std::to_string(range.lo) + "LL, " + std::to_string(range.hi) + "LL, " +
           std::to_string(stride) + ", " + std::to_string(period) + ", " +
           std::to_string(residue) + ", " + (writes(a.mode) ? "true" : "false") + "}";
  }
  std::vector<std::string> site_accesses() const {
    std::vector<std::string> entries;
    for (std::size_t r = 0; r < plan_.regions.size(); ++r) {
      const Region& region = plan_.regions[r];
      if (region.kind == Region::Kind::Expanded) {
        for (std::size_t v = 0; v < region.graph.nodes.size(); ++v)
          for (const auto& a : region.graph.nodes[v].accesses)
            entries.push_back(
                access_entry(site_of_.at({r, static_cast<int>(v)}), a, a.range, 0, 1, 0));
        continue;
      }
      symbolic_accesses(r, region, entries);
    }
    return entries;
  }
  // A symbolic loop's site runs once per iteration; its ranges repeat every period, moved
  // by a constant stride (tensor_ref indices affine in the loop variable).
  void symbolic_accesses(std::size_t r, const Region& region,
                         std::vector<std::string>& entries) const {
    const SymbolicLoop& loop = region.loop;
    const int P = loop.period;
    for (int b = 0; b < loop.body_size; ++b) {
      const int site = site_of_.at({r, b});
      for (int s = 0; s < P; ++s) {
        const int t0 = loop.steady_start + s;
        const Node& at = region.graph.nodes[loop.node_of(b, t0)];
        const Node* next = t0 + P < loop.window ? &region.graph.nodes[loop.node_of(b, t0 + P)]
                                                : nullptr;
        for (std::size_t i = 0; i < at.accesses.size(); ++i) {
          const ResolvedAccess& a = at.accesses[i];
          if (loop.whole_refs.contains(a.tensor)) {
            entries.push_back(access_entry(site, a, {0, INT64_MAX}, 0, P, s));
            continue;
          }
          const std::int64_t stride = next ? next->accesses[i].range.lo - a.range.lo : 0;
          const std::int64_t back = (t0 - s) / P * stride;
          entries.push_back(access_entry(site, a, {a.range.lo - back, a.range.hi - back}, stride,
                                         P, s));
        }
      }
    }
  }

  // A run-time bound the loop variable's type cannot reach (unsigned char i < n, n = 300):
  // the sequential loop wraps around and never ends as written. Refused before any warp
  // starts instead of running the iterations the bound would give.
  void write_loop_range_check(std::size_t r, const SymbolicLoop& loop) {
    const IntType& type = loop.loop->var_int_type;
    if (type.bits >= 64 && type.is_signed)
      return; // the trip count's own int64 arithmetic bounds it
    const std::string lowest = type.is_signed ? "-(std::int64_t{1} << " + std::to_string(type.bits - 1) + ")" : "0";
    const std::string highest =
        type.bits >= 63 ? "INT64_MAX"
                        : "(std::int64_t{1} << " + std::to_string(type.is_signed ? type.bits - 1 : type.bits) + ") - 1";
    out_ << "s2p::rt::check_loop_range(" << quoted(kernel_.name) << ", " << quoted(loop.var) << ", "
         << quoted(loop.var_type) << ", " << loop.init << ", " << loop.step << ", " << trips_name(r)
         << ", " << lowest << ", " << highest << ");\n";
  }

  // Accesses are ordered per tensor_ref, so two tensor_refs over overlapping memory, one
  // of them written, would race: the launch checks their address ranges first.
  void write_tensor_ref_check() {
    std::set<int> written;
    collect_written(kernel_.root, written);
    std::vector<std::string> spans;
    for (std::size_t t = 0; t < kernel_.tensors.size(); ++t) {
      const Tensor& tensor = kernel_.tensors[t];
      if (tensor.kind == TensorKind::Ref && !tensor.tile_block) // tile blocks never overlap
        spans.push_back("s2p::rt::span_of(" + quoted(tensor.name) + ", " + tensor.name + ", " +
                        (written.contains(static_cast<int>(t)) ? "true" : "false") + ")");
    }
    if (spans.size() < 2 || written.empty())
      return;
    out_ << "s2p::rt::check_disjoint_tensor_refs(" << quoted(kernel_.name) << ", {";
    for (std::size_t i = 0; i < spans.size(); ++i)
      out_ << (i ? ", " : "") << spans[i];
    out_ << "});\n";
  }
  static void collect_written(const ScheduleNode& node, std::set<int>& written) {
    if (node.kind == ScheduleNode::Kind::Call)
      for (const auto& access : node.call.accesses)
        if (writes(access.mode))
          written.insert(access.tensor);
    for (const auto& child : node.children)
      collect_written(child, written);
  }

  void write_fence(std::size_t region) {
    out_ << "s2p_w.signal(" << plan_.fence_channel << "); // fence " << region << ": region "
         << region << " starts after every warp finished the regions before it\n";
    out_ << "s2p_w.wait(" << plan_.fence_channel << ", " << region * plan_.warps.size()
         << ", -1);\n";
  }

  void write_expanded(std::size_t r, const Region& region, int warp) {
    const Graph& graph = region.graph;
    for (const auto& program : region.warps) {
      if (program.warp != warp)
        continue;
      for (const auto& op : program.ops) {
        const Node& node = graph.nodes[op.node];
        const int site = site_of_.at({r, op.node});
        switch (op.kind) {
        case WarpOp::Kind::Wait:
          out_ << "s2p_w.wait(" << op.channel << ", " << op.phase << ", " << site << "); // "
               << describe_edge(graph, graph.edges[op.edge]) << "\n";
          break;
        case WarpOp::Kind::Call:
          write_guarded(node.guard, site, [&] {
            out_ << node.text << "; // " << node.id << ", line " << node.loc.line << "\n";
            out_ << "s2p_w.step(" << site << ", "
                 << cost_text(kernel_, node, *node.call, Bindings{},
                              node.cost_arguments.empty() ? nullptr : &node.cost_arguments)
                 << ");\n";
          });
          break;
        case WarpOp::Kind::Signal:
          out_ << "s2p_w.signal(" << op.channel << "); // "
               << describe_edge(graph, graph.edges[op.edge]) << "\n";
          break;
        case WarpOp::Kind::Fence:
          break;
        }
      }
    }
  }

  std::string family_text(const Region& region, const EdgeFamily& family) const {
    const auto& loop = region.loop;
    const Graph& graph = region.graph;
    auto at = [&](int b, std::int64_t back) {
      const std::string name = template_name(graph.nodes[loop.node_of(b, 0)]);
      return name + "[" + loop.var + (back ? " - " + std::to_string(back) : "") + "]";
    };
    // Ranges are the same in every instance only when the family is per residue.
    return at(family.from_template, family.distance) + " -> " + at(family.to_template, 0) + ": " +
           to_string(family.kind) +
           ranges_text(graph, family.labels, family.residue >= 0 || loop.period == 1);
  }

  // phase for destination iteration s2p_t0 + s: stride-1 families count every iteration.
  static std::string phase_text(const EdgeFamily& family, int period, int s) {
    if (family.residue < 0) {
      const std::int64_t k = s - family.distance + 1;
      return "s2p_t0" + (k == 0  ? std::string()
                         : k > 0 ? " + " + std::to_string(k)
                                 : " - " + std::to_string(-k));
    }
    const std::int64_t c = (s - family.distance - family.source_residue) / period + 1;
    return "s2p_t0 / " + std::to_string(period) +
           (c == 0  ? std::string()
            : c > 0 ? " + " + std::to_string(c)
                    : " - " + std::to_string(-c));
  }

  // A predicated call (Node::guard): it runs when its guard holds; its waits and signals,
  // written around it, run either way. When it does not run, `skip` keeps the site's
  // execution count (which the race checker maps to iterations) in step.
  template <class WriteCall>
  void write_guarded(const std::optional<Condition>& guarded_by, int site,
                     WriteCall&& write_call) {
    const std::optional<Condition> guard =
        guarded_by ? std::optional<Condition>(guarded_by->decided_by_cases()) : std::nullopt;
    if (!guard || (guard->is_constant() && guard->value)) {
      write_call();
      return;
    }
    std::string as_written = guard->text; // one line: it goes into a // comment
    std::replace_if(as_written.begin(), as_written.end(), [](char c) { return c == '\n' || c == '\r' || c == '\\'; }, ' ');
    if (guard->is_constant()) {
      out_ << "s2p_w.skip(" << site << "); // '" << as_written << "' is false here\n";
      return;
    }
    const std::string test = guard->to_cpp(); // parenthesized unless a negation
    out_ << "if " << (guard->op == Condition::Op::Not ? "(" + test + ")" : test) << " { // "
         << as_written << "\n";
    write_call();
    out_ << "} else {\ns2p_w.skip(" << site << ");\n}\n";
  }

  void write_symbolic(std::size_t r, const Region& region, int warp) {
    const SymbolicLoop& loop = region.loop;
    const SymbolicLoop::Warp* program = nullptr;
    for (const auto& p : loop.warps)
      if (p.warp == warp)
        program = &p;
    if (!program)
      return;
    const int P = loop.period;
    out_ << "// loop '" << loop.var << "' (line " << loop.loop->loc.line << ") kept as a loop";
    if (loop.constant_trips)
      out_ << " (" << *loop.constant_trips
           << " iterations; expanded, the kernel would not fit a tile)";
    out_ << ": its buffer use repeats every " << P << " iteration" << (P == 1 ? "" : "s") << "\n";
    out_ << "for (std::int64_t s2p_t0 = 0; s2p_t0 < " << trips_name(r) << "; s2p_t0 += " << P
         << ") {\n";
    for (int s = 0; s < P; ++s) {
      if (s > 0)
        out_ << "if (s2p_t0 + " << s << " >= " << trips_name(r) << ") break;\n";
      out_ << "{\n";
      std::string value = "s2p_t0" + (s ? " + " + std::to_string(s) : std::string());
      if (loop.step != 1)
        value = "(" + value + ") * " + std::to_string(loop.step);
      if (loop.init != 0)
        value = std::to_string(loop.init) + " + " + value;
      out_ << "[[maybe_unused]] const " << loop.var_type << " " << loop.var << " = static_cast<"
           << loop.var_type << ">(" << value << ");\n";
      for (const auto& op : program->residues[s]) {
        const Node& representative =
            region.graph.nodes[loop.node_of(op.body_call, loop.steady_start + s)];
        const int site = site_of_.at({r, op.body_call});
        if (op.kind == SymbolicOp::Kind::Call) {
          const SymbolicCall call = symbolic_call(loop, representative, s);
          write_guarded(symbolic_guard(loop, representative, s), site, [&] {
            out_ << call.text << "; // " << template_name(representative) << ", line "
                 << representative.loc.line << "\n";
            out_ << "s2p_w.step(" << site << ", "
                 << cost_text(kernel_, representative, call.site, Bindings{}, nullptr) << ");\n";
          });
          continue;
        }
        const EdgeFamily& family = loop.families[op.family];
        if (op.kind == SymbolicOp::Kind::Wait) {
          out_ << "s2p_w.wait(" << family.channel << ", " << phase_text(family, P, s) << ", "
               << site << "); // " << family_text(region, family) << "\n";
        } else {
          out_ << "s2p_w.signal(" << family.channel << "); // " << family_text(region, family)
               << "\n";
        }
      }
      out_ << "}\n";
    }
    out_ << "}\n";
  }

  const Kernel& kernel_;
  const passes::WarpSplit& plan_;
  const EmitOptions& options_;
  std::vector<std::pair<std::string, unsigned>> sites_;
  std::map<std::pair<std::size_t, int>, int> site_of_;
  std::ostringstream out_;
};

} // namespace

std::string emit_kernel_body(const Kernel& kernel, const passes::WarpSplit& plan,
                             const EmitOptions& options) {
  return BodyWriter(kernel, plan, options).write();
}

} // namespace s2p::emit
