#include "passes/build_cdfg.h"

#include "ir/call_text.h"
#include "ir/interval_map.h"

#include <algorithm>
#include <limits>
#include <map>

namespace s2p::passes {

using namespace s2p::ir;

void add_label(Edge& edge, int space, Range range) {
  auto it = std::find_if(edge.labels.begin(), edge.labels.end(), [&](const SpaceRanges& l) { return l.space == space; });
  if (it == edge.labels.end()) {
    edge.labels.push_back({space, {range}});
    return;
  }
  auto& ranges = it->ranges;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::vector<Range> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.lo <= merged.back().hi)
      merged.back().hi = std::max(merged.back().hi, r.hi);
    else
      merged.push_back(r);
  }
  ranges = std::move(merged);
}

namespace {

class Expander {
public:
  Expander(const Kernel& kernel, Diagnostics& diags, const CdfgOptions& options)
      : kernel_(kernel), diags_(diags), options_(options) {
    for (const auto& pool : kernel.pools) graph_.spaces.push_back({pool.name, true, pool.units});
    for (std::size_t t = 0; t < kernel.tensors.size(); ++t) {
      if (kernel.tensors[t].kind == TensorKind::Ref) {
        ref_space_[static_cast<int>(t)] = static_cast<int>(graph_.spaces.size());
        graph_.spaces.push_back({kernel.tensors[t].name, false, 0});
      }
    }
  }

  Graph run() {
    Bindings env;
    walk(kernel_.root, env);
    if (!failed_) add_control_and_data_edges();
    return std::move(graph_);
  }

private:
  void walk(const ScheduleNode& node, Bindings& env) {
    if (failed_) return;
    switch (node.kind) {
    case ScheduleNode::Kind::Kernel:
    case ScheduleNode::Kind::Function:
    case ScheduleNode::Kind::Block: {
      const std::size_t scope = env.size();
      for (const auto& child : node.children) walk(child, env);
      env.truncate(scope);
      break;
    }
    case ScheduleNode::Kind::Let: {
      auto value = evaluate(node.value, env, node.loc, "'" + node.name + "'");
      if (value) env.bind(node.name, *value);
      break;
    }
    case ScheduleNode::Kind::Loop:
      expand_loop(node, env);
      break;
    case ScheduleNode::Kind::Call:
      instantiate(node.call, env);
      break;
    }
  }

  std::optional<std::int64_t> evaluate(const Expr& e, const Bindings& env, const SourceLocation& loc,
                                       const std::string& what) {
    std::string error;
    auto value = e.evaluate(env, &error);
    if (!value) {
      if (error.empty()) {
        std::string names;
        for (const auto& v : e.substitute(env).variables()) names += (names.empty() ? "'" : ", '") + v + "'";
        error = "depends on the run-time value of " + names;
      }
      fail(loc, what + " cannot be evaluated at transpile time: " + error);
    }
    return value;
  }

  void fail(const SourceLocation& loc, std::string message) {
    diags_.error(loc, std::move(message));
    failed_ = true;
  }

  void expand_loop(const ScheduleNode& loop, Bindings& env) {
    auto init = evaluate(loop.init, env, loop.loc, "the start of loop '" + loop.name + "'");
    auto bound = evaluate(loop.bound, env, loop.loc, "the bound of loop '" + loop.name + "'");
    if (!init || !bound) return;
    const std::size_t scope = env.size();
    for (std::int64_t v = *init; loop.step > 0 ? v < *bound : v > *bound;) {
      env.bind(loop.name, v);
      for (const auto& child : loop.children) walk(child, env);
      env.truncate(scope);
      if (failed_) return;
      if (__builtin_add_overflow(v, loop.step, &v)) break;
    }
  }

  std::optional<ResolvedAccess> resolve(const Access& access, const Bindings& env, const CallSite& call) {
    const Tensor& tensor = kernel_.tensors[access.tensor];
    ResolvedAccess out;
    out.tensor = access.tensor;
    out.mode = access.mode;
    for (std::size_t d = 0; d < access.coords.size(); ++d) {
      auto c = evaluate(access.coords[d], env, access.loc, "coordinate " + std::to_string(d) + " of '" + tensor.name + "'");
      if (!c) return std::nullopt;
      out.coords.push_back(*c);
    }
    if (tensor.kind == TensorKind::Ref) {
      out.space = ref_space_.at(access.tensor);
      if (access.whole) {
        out.range = {0, std::numeric_limits<std::int64_t>::max()};
      } else {
        if (out.coords[0] < 0) {
          fail(access.loc, "index " + std::to_string(out.coords[0]) + " of tensor_ref '" + tensor.name +
                               "' is negative (in " + render_call(call, env) + ")");
          return std::nullopt;
        }
        out.range = {out.coords[0], out.coords[0] + 1};
      }
      return out;
    }
    out.space = tensor.pool;
    auto offset = evaluate(tensor.offset, env, tensor.loc, "the offset of tensor '" + tensor.name + "'");
    if (!offset) return std::nullopt;
    std::int64_t linear = 0;
    if (access.whole) {
      out.range = {*offset, *offset + tensor.sub_tensor_count() * tensor.sub_size};
      return out;
    }
    for (std::size_t d = 0; d < tensor.shape.size(); ++d) {
      if (out.coords[d] < 0 || out.coords[d] >= tensor.shape[d]) {
        fail(access.loc, "coordinate " + std::to_string(out.coords[d]) + " is out of range [0," +
                             std::to_string(tensor.shape[d]) + ") for tensor '" + tensor.name + "' in " +
                             render_call(call, env));
        return std::nullopt;
      }
      linear = linear * tensor.shape[d] + out.coords[d];
    }
    const std::int64_t lo = *offset + linear * tensor.sub_size;
    out.range = {lo, lo + tensor.sub_size};
    return out;
  }

  void instantiate(const CallSite& call, const Bindings& env) {
    if (static_cast<std::int64_t>(graph_.nodes.size()) >= options_.max_nodes) {
      fail(call.loc, "expanding the kernel's loops gives more than " + std::to_string(options_.max_nodes) +
                         " intrinsic calls; make the trip count a kernel parameter so the loop stays a loop");
      return;
    }
    Node node;
    node.warp = call.warp;
    node.call = &call;
    node.loc = call.loc;
    node.text = render_call(call, env);
    if (!call.cost.empty())
      for (const auto& [offset, length] : call.arguments) node.cost_arguments.push_back(render_span(call, env, offset, offset + length));
    bool any_read = false, any_write = false;
    for (const auto& access : call.accesses) {
      auto resolved = resolve(access, env, call);
      if (!resolved) return;
      any_read |= reads(resolved->mode);
      any_write |= writes(resolved->mode);
      if (kernel_.tensors[access.tensor].kind == TensorKind::Pool) node.elements += resolved->range.hi - resolved->range.lo;
      node.accesses.push_back(std::move(*resolved));
    }
    node.role = any_read && any_write ? Role::ProducerConsumer
                : any_write           ? Role::Producer
                : any_read            ? Role::Consumer
                                      : Role::Neither;
    graph_.nodes.push_back(std::move(node));
  }

  int edge_for(std::map<std::pair<int, int>, int>& index, int from, int to, EdgeKind kind) {
    auto [it, inserted] = index.try_emplace({from, to}, static_cast<int>(graph_.edges.size()));
    if (inserted) graph_.edges.push_back({from, to, kind, {}});
    return it->second;
  }

  void add_control_and_data_edges() {
    name_nodes();
    std::map<int, int> last_of_warp;
    for (int n = 0; n < static_cast<int>(graph_.nodes.size()); ++n) {
      auto [it, first] = last_of_warp.try_emplace(graph_.nodes[n].warp, n);
      if (!first) {
        graph_.edges.push_back({it->second, n, EdgeKind::Control, {}});
        it->second = n;
      }
    }
    std::vector<IntervalMap<int>> last_writer(graph_.spaces.size(), IntervalMap<int>(-1));
    std::map<std::pair<int, int>, int> data_edges;
    for (int n = 0; n < static_cast<int>(graph_.nodes.size()); ++n) {
      for (const auto& access : graph_.nodes[n].accesses) {
        if (!reads(access.mode)) continue;
        last_writer[access.space].for_each(access.range.lo, access.range.hi, [&](std::int64_t lo, std::int64_t hi, int& writer) {
          if (writer >= 0 && writer != n) add_label(graph_.edges[edge_for(data_edges, writer, n, EdgeKind::Data)], access.space, {lo, hi});
        });
      }
      for (const auto& access : graph_.nodes[n].accesses)
        if (writes(access.mode)) last_writer[access.space].assign(access.range.lo, access.range.hi, n);
    }
  }

  void name_nodes() {
    std::map<Role, int> count;
    for (auto& node : graph_.nodes) {
      const char* prefix = node.role == Role::Producer ? "p" : node.role == Role::Consumer ? "c" : node.role == Role::ProducerConsumer ? "x" : "n";
      node.id = prefix + std::to_string(++count[node.role]);
    }
  }

  const Kernel& kernel_;
  Diagnostics& diags_;
  const CdfgOptions& options_;
  Graph graph_;
  std::map<int, int> ref_space_;
  bool failed_ = false;
};

} // namespace

Graph build_cdfg(const Kernel& kernel, Diagnostics& diags, const CdfgOptions& options) {
  return Expander(kernel, diags, options).run();
}

} // namespace s2p::passes
