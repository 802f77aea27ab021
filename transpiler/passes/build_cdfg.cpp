#include "passes/build_cdfg.h"

#include "ir/call_text.h"
#include "ir/interval_map.h"
#include "passes/loop_period.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <variant>

namespace s2p::passes {

using namespace s2p::ir;

void add_label(Edge& edge, int space, Range range) {
  auto it = std::find_if(edge.labels.begin(), edge.labels.end(),
                         [&](const SpaceRanges& l) { return l.space == space; });
  if (it == edge.labels.end()) {
    edge.labels.push_back({space, {range}});
    return;
  }
  auto& ranges = it->ranges;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.lo < b.lo; });
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

// Iterations of a symbolic loop expanded for its analysis: enough periods that the middle
// is free of start-up effects and long dependency distances show.
int analysis_window(int period) {
  return 8 * period + 32;
}

class Expander {
public:
  Expander(const Kernel& kernel, Diagnostics& diags, const CdfgOptions& options)
      : kernel_(kernel), diags_(diags), options_(options) {
    for (const auto& pool : kernel.pools)
      spaces_.push_back({pool.name, true, pool.units});
    for (std::size_t t = 0; t < kernel.tensors.size(); ++t) {
      if (kernel.tensors[t].kind == TensorKind::Ref) {
        ref_space_[static_cast<int>(t)] = static_cast<int>(spaces_.size());
        spaces_.push_back({kernel.tensors[t].name, false, 0});
      }
    }
    current_.graph.spaces = spaces_;
  }

  CdfgRegions run() {
    Bindings env;
    walk(kernel_.root, env);
    finish_region();
    if (failed_)
      regions_.clear();
    return {std::move(regions_), call_limit_reached_};
  }

private:
  void walk(const ScheduleNode& node, Bindings& env) {
    if (failed_)
      return;
    switch (node.kind) {
    case ScheduleNode::Kind::Kernel:
    case ScheduleNode::Kind::Function:
    case ScheduleNode::Kind::Block: {
      const std::size_t scope = env.size();
      for (const auto& child : node.children)
        walk(child, env);
      env.truncate(scope);
      break;
    }
    case ScheduleNode::Kind::Loop:
      walk_loop(node, env);
      break;
    case ScheduleNode::Kind::Call:
      instantiate(node.call, env);
      break;
    case ScheduleNode::Kind::If:
      walk_if(node, env);
      break;
    }
  }

  // A static condition, resolved per instance where its variables are bound: only the
  // branch it takes is expanded (the other one has no nodes in this iteration). Every warp
  // would compute the same value, and so does the sequential program. A condition on the
  // variable of a loop with a run-time trip count (`if (k + 2 < K)`), or one that mixes
  // kernel parameters with loop variables (`if (i + n > 3)`), only the running program can
  // decide: both branches are expanded and their calls predicated (see Node::guard).
  void walk_if(const ScheduleNode& branch, Bindings& env) {
    const Condition& condition = branch.condition;
    const bool on_window_variable = in_window_ && condition.variables().contains(window_var_);
    std::string error;
    const auto taken = on_window_variable ? std::nullopt : condition.evaluate(env, &error);
    if (taken) {
      const std::size_t index = *taken ? 0 : 1;
      if (index < branch.children.size())
        walk(branch.children[index], env);
      return;
    }
    if (!error.empty()) {
      fail(branch.loc, "the condition '" + condition.text + "' is " + error +
                           " here: undefined behaviour in the sequential program");
      return;
    }
    auto guard = run_time_guard(condition, env);
    if (!guard) {
      fail(branch.loc, unbound_condition_message(condition, env));
      return;
    }
    for (std::size_t index = 0; index < branch.children.size() && !failed_; ++index) {
      Condition taken_when = index == 0 ? *guard : Condition::negation(*guard);
      taken_when.text = index == 0 ? guard->text : "!(" + guard->text + ")";
      guards_.push_back(std::move(taken_when));
      walk(branch.children[index], env);
      guards_.pop_back();
    }
  }

  // The condition as the running program evaluates it: loop variables bound here replaced by
  // their values, except the variable of the symbolic loop being expanded (it stays a
  // variable). Nothing if it still reads a name that is neither that variable nor a kernel
  // parameter.
  std::optional<Condition> run_time_guard(const Condition& condition, const Bindings& env) const {
    Bindings bound;
    for (const auto& [name, value] : env.entries())
      if (!in_window_ || name != window_var_)
        bound.bind(name, value);
    Condition guard = condition.substitute(bound);
    for (const auto& v : guard.variables()) {
      const bool parameter =
          std::find(kernel_.symbols.begin(), kernel_.symbols.end(), v) != kernel_.symbols.end();
      if (!parameter && !(in_window_ && v == window_var_))
        return std::nullopt;
    }
    guard.text = condition.text;
    return guard;
  }

  // The guards of the `if`s around the current call, as one condition (none: it always runs).
  std::optional<Condition> current_guard() const {
    if (guards_.empty())
      return std::nullopt;
    Condition all = guards_.front();
    std::string text = all.text;
    for (std::size_t g = 1; g < guards_.size(); ++g) {
      all = Condition::conjunction(std::move(all), guards_[g]);
      text += " && " + guards_[g].text;
    }
    all.text = std::move(text);
    return all;
  }

  // For an access error under a run-time guard: why seq2par resolved the access anyway.
  std::string guard_note() const {
    const auto guard = current_guard();
    if (!guard)
      return "";
    return "; the call is under '" + guard->text +
           "', which only the running program decides, so seq2par plans its buffers as if it "
           "ran in every iteration";
  }

  // True when the current call's guard is false in the iteration being expanded: a call
  // the running program skips here, so what its arguments would address does not matter.
  bool skipped_here(const Bindings& env) const {
    const auto guard = current_guard();
    if (!guard)
      return false;
    const auto value = guard->evaluate(env);
    return value && !*value;
  }

  std::string unbound_condition_message(const Condition& condition, const Bindings& env) const {
    std::string names;
    for (const auto& v : condition.variables())
      if (!env.lookup(v) && std::find(kernel_.symbols.begin(), kernel_.symbols.end(), v) ==
                                kernel_.symbols.end())
        names += (names.empty() ? "'" : ", '") + v + "'";
    return "the condition '" + condition.text + "' depends on the run-time value of " + names +
           "; a condition may read loop variables, constants and kernel parameters";
  }

  std::optional<std::int64_t> evaluate(const Expr& e, const Bindings& env,
                                       const SourceLocation& loc, const std::string& what) {
    std::string error;
    auto value = e.evaluate(env, &error);
    if (!value) {
      if (error.empty()) {
        std::string names;
        for (const auto& v : e.substitute(env).variables())
          names += (names.empty() ? "'" : ", '") + v + "'";
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

  void walk_loop(const ScheduleNode& loop, Bindings& env) {
    auto init = evaluate(loop.init, env, loop.loc, "the start of loop '" + loop.name + "'");
    if (!init)
      return;
    if (!loop.bound.evaluate(env)) {
      symbolic_loop(loop, *init, env);
      return;
    }
    auto bound = evaluate(loop.bound, env, loop.loc, "the bound of loop '" + loop.name + "'");
    if (!bound)
      return;
    if (options_.keep_long_constant_loops && keep_constant_loop(loop, *init, *bound, env))
      return;
    const std::size_t scope = env.size();
    for (std::int64_t v = *init; loop.step > 0 ? v < *bound : v > *bound;) {
      env.bind(loop.name, v);
      for (const auto& child : loop.children)
        walk(child, env);
      env.truncate(scope);
      if (failed_)
        return;
      if (__builtin_add_overflow(v, loop.step, &v) || !fits(v, loop.var_int_type)) {
        // The program's variable wraps around (or overflows) before the condition fails:
        // it does not run the iterations an exact count would give.
        fail(loop.loc, "loop '" + loop.name + "' steps past the range of its type '" +
                           loop.var_int_type.spelling + "' before its condition ends it");
        return;
      }
    }
  }

  static bool fits(std::int64_t v, const IntType& type) {
    if (type.bits >= 64)
      return type.is_signed || v >= 0;
    const std::int64_t span = std::int64_t{1} << type.bits;
    return type.is_signed ? v >= -span / 2 && v < span / 2 : v >= 0 && v < span;
  }

  // --- symbolic loops ---

  void symbolic_loop(const ScheduleNode& loop, std::int64_t init, Bindings& env) {
    if (!guards_.empty()) {
      fail(loop.loc, "loop '" + loop.name + "' has a run-time trip count and sits inside an 'if' "
                                            "that only the running program can decide ('" +
                         guards_.back().text + "'); move the 'if' into the loop's body");
      return;
    }
    if (in_window_) {
      fail(loop.loc, "loop '" + loop.name +
                         "' has a run-time trip count inside another such loop; only the outer "
                         "of two nested loops can have one");
      return;
    }
    if (loop.step <= 0) {
      fail(loop.loc,
           "loop '" + loop.name + "' has a run-time trip count and counts down; count up instead");
      return;
    }
    for (const auto& v : loop.bound.substitute(env).variables()) {
      if (std::find(kernel_.symbols.begin(), kernel_.symbols.end(), v) == kernel_.symbols.end()) {
        fail(loop.loc, "the bound of loop '" + loop.name + "' depends on '" + v +
                           "', which is not a kernel parameter");
        return;
      }
    }
    auto period = body_period(kernel_, loop, env);
    if (const auto* problem = std::get_if<LoopProblem>(&period)) {
      fail(problem->loc, problem->message);
      return;
    }
    keep_as_loop(loop, init, std::move(std::get<BodyPeriod>(period)), env);
  }

  // A loop with a constant trip count, under CdfgOptions::keep_long_constant_loops: kept as a
  // loop when it is longer than its analysis window and the rules of a loop with a run-time
  // trip count allow it (no run-time guard around it, not inside another kept loop, counting
  // up, a periodic body). A loop they do not allow is expanded, with a note saying why (the
  // driver shows it if the expanded kernel is refused).
  bool keep_constant_loop(const ScheduleNode& loop, std::int64_t init, std::int64_t bound,
                          Bindings& env) {
    if (in_window_ || !guards_.empty() || loop.step <= 0)
      return false;
    std::int64_t span = 0;
    if (bound <= init || __builtin_sub_overflow(bound, init, &span))
      return false;
    const std::int64_t trips = span / loop.step + (span % loop.step != 0);
    if (trips <= analysis_window(1))
      return false; // no loop shorter than the smallest analysis window gains from it
    auto period = body_period(kernel_, loop, env);
    if (const auto* problem = std::get_if<LoopProblem>(&period)) {
      if (noted_loops_.insert(&loop).second)
        diags_.note(problem->loc, "loop '" + loop.name + "' (" + std::to_string(trips) +
                                      " iterations) cannot be kept as a loop, which needs what a "
                                      "loop with a run-time trip count needs: " +
                                      problem->message);
      return false;
    }
    BodyPeriod& body = std::get<BodyPeriod>(period);
    if (trips <= analysis_window(body.iterations) ||
        !fits(init + (trips - 1) * loop.step, loop.var_int_type))
      return false; // too short to gain, or wrapping around (the expansion reports that)
    keep_as_loop(loop, init, std::move(body), env, trips);
    return true;
  }

  // The loop as one symbolic region: its body expanded over the analysis window.
  void keep_as_loop(const ScheduleNode& loop, std::int64_t init, BodyPeriod body, Bindings& env,
                    std::optional<std::int64_t> constant_trips = std::nullopt) {
    finish_region();
    const int period = body.iterations;
    const int window = analysis_window(period);
    whole_refs_ = std::move(body.whole_refs);
    Region region;
    region.kind = Region::Kind::SymbolicLoop;
    SymbolicLoop& info = region.loop;
    info.loop = &loop;
    info.var = loop.name;
    info.var_type = loop.var_type;
    info.init = init;
    info.step = loop.step;
    info.bound = loop.bound.substitute(env);
    info.period = period;
    info.window = window;
    info.whole_refs = whole_refs_;
    info.constant_trips = constant_trips;
    info.steady_start = (window / 2) / period * period;
    current_ = std::move(region);
    current_.graph.spaces = spaces_;

    in_window_ = true;
    window_var_ = loop.name;
    const std::size_t scope = env.size();
    for (int t = 0; t < window && !failed_; ++t) {
      iteration_ = t;
      body_call_ = 0;
      env.bind(loop.name, init + t * loop.step);
      for (const auto& child : loop.children)
        walk(child, env);
      env.truncate(scope);
      if (t == 0)
        current_.loop.body_size = body_call_;
      if (!failed_ && body_call_ != current_.loop.body_size) {
        fail(loop.loc, "the body of loop '" + loop.name +
                           "' does not make the same calls in every iteration");
      }
    }
    in_window_ = false;
    if (!failed_)
      check_guards_repeat(loop);
    finish_region();
  }

  // A body call has one guard in every iteration: the emitted loop evaluates it with the
  // loop variable as a variable.
  void check_guards_repeat(const ScheduleNode& loop) {
    const auto& nodes = current_.graph.nodes;
    const SymbolicLoop& info = current_.loop;
    auto text = [](const Node& n) { return n.guard ? n.guard->to_cpp() : std::string(); };
    for (int t = 1; t < info.window; ++t)
      for (int b = 0; b < info.body_size; ++b)
        if (text(nodes[info.node_of(b, t)]) != text(nodes[info.node_of(b, 0)])) {
          fail(nodes[info.node_of(b, t)].loc,
               "internal error: the condition around this call in loop '" + loop.name +
                   "' changes between iterations; please report this");
          return;
        }
  }

  // --- nodes and edges ---

  std::optional<ResolvedAccess> resolve(const Access& access, const Bindings& env,
                                        const CallSite& call) {
    const Tensor& tensor = kernel_.tensors[access.tensor];
    ResolvedAccess out;
    out.tensor = access.tensor;
    out.mode = access.mode;
    if (tensor.kind == TensorKind::Ref && !access.whole &&
        depends_on_kernel_parameters(access.coords[0].substitute(env))) {
      // `in[n - 1 - i]`: which sub-tensor is known only at run time, so the access is
      // ordered as one to the whole tensor_ref (conservative, and the same in every run).
      out.space = ref_space_.at(access.tensor);
      out.coords.push_back(0);
      out.range = in_window_ ? Range{0, 1} : Range{0, std::numeric_limits<std::int64_t>::max()};
      return out;
    }
    for (std::size_t d = 0; d < access.coords.size(); ++d) {
      auto c = evaluate(access.coords[d], env, access.loc,
                        "coordinate " + std::to_string(d) + " of '" + tensor.name + "'");
      if (!c)
        return std::nullopt;
      out.coords.push_back(*c);
    }
    if (tensor.kind == TensorKind::Ref) {
      out.space = ref_space_.at(access.tensor);
      if (in_window_ && whole_refs_.contains(access.tensor)) {
        out.range = {0, 1};
      } else if (access.whole) {
        out.range = {0, std::numeric_limits<std::int64_t>::max()};
      } else {
        if (out.coords[0] < 0 && skipped_here(env)) {
          out.range = {0, 0}; // never touched: the call is skipped in this iteration
          return out;
        }
        if (out.coords[0] < 0) {
          fail(access.loc, "index " + std::to_string(out.coords[0]) + " of tensor_ref '" +
                               tensor.name + "' is negative (in " + render_call(call, env) + ")" + guard_note());
          return std::nullopt;
        }
        out.range = {out.coords[0], out.coords[0] + 1};
      }
      return out;
    }
    out.space = tensor.pool;
    auto offset =
        evaluate(tensor.offset, env, tensor.loc, "the offset of tensor '" + tensor.name + "'");
    if (!offset)
      return std::nullopt;
    std::int64_t linear = 0;
    if (access.whole) {
      out.range = {*offset, *offset + tensor.sub_tensor_count() * tensor.sub_size};
      return out;
    }
    for (std::size_t d = 0; d < tensor.shape.size(); ++d) {
      if ((out.coords[d] < 0 || out.coords[d] >= tensor.shape[d]) && skipped_here(env)) {
        out.range = {*offset, *offset}; // never touched: the call is skipped in this iteration
        return out;
      }
      if (out.coords[d] < 0 || out.coords[d] >= tensor.shape[d]) {
        fail(access.loc, "coordinate " + std::to_string(out.coords[d]) + " is out of range [0," +
                             std::to_string(tensor.shape[d]) + ") for tensor '" + tensor.name +
                             "' in " + render_call(call, env) + guard_note());
        return std::nullopt;
      }
      linear = linear * tensor.shape[d] + out.coords[d];
    }
    const std::int64_t lo = *offset + linear * tensor.sub_size;
    out.range = {lo, lo + tensor.sub_size};
    return out;
  }

  // A folded argument that divides by zero or overflows a signed type is undefined
  // behaviour in the sequential program: there is no result to reproduce.
  bool holes_are_defined(const CallSite& call, const Bindings& env) {
    if (skipped_here(env))
      return true; // not evaluated in this iteration
    for (const auto& hole : call.holes) {
      if (!hole.value)
        continue;
      const Expr folded = hole.value->substitute(env);
      if (folded.is_constant() || !folded.variables().empty())
        continue;
      std::string error;
      hole.value->evaluate(env, &error);
      // '\'', not "'": GCC bug 105651 (a false -Wrestrict)
      fail(call.loc, '\'' + hole.value->to_cpp() + "' in " + render_call(call, env) + " is " +
                         (error.empty() ? "not defined" : error) +
                         " here: undefined behaviour in the sequential program");
      return false;
    }
    return true;
  }

  bool depends_on_kernel_parameters(const Expr& e) const {
    const auto names = e.variables();
    return !names.empty() && std::all_of(names.begin(), names.end(), [&](const std::string& v) {
      return std::find(kernel_.symbols.begin(), kernel_.symbols.end(), v) != kernel_.symbols.end();
    });
  }

  void instantiate(const CallSite& call, const Bindings& env) {
    if (total_nodes_ >= options_.max_nodes) {
      call_limit_reached_ = true;
      fail(call.loc,
           "expanding the kernel's loops gives more than " + std::to_string(options_.max_nodes) +
               " intrinsic calls; make the trip count a kernel parameter so the loop stays a loop");
      return;
    }
    if (!holes_are_defined(call, env))
      return;
    Node node;
    node.warp = call.warp;
    node.call = &call;
    node.loc = call.loc;
    node.text = render_call(call, env);
    node.guard = current_guard();
    // Arguments as this node passes them: for S2P_COST, and for the default cost of a task's
    // tile blocks (their elements are counted when the task runs).
    const bool tile_blocks = std::any_of(call.accesses.begin(), call.accesses.end(),
                                         [&](const Access& a) {
                                           return kernel_.tensors[a.tensor].tile_block;
                                         });
    if (!call.cost.empty() || tile_blocks)
      for (const auto& [offset, length] : call.arguments)
        node.cost_arguments.push_back(render_span(call, env, offset, offset + length));
    bool any_read = false, any_write = false;
    for (const auto& access : call.accesses) {
      auto resolved = resolve(access, env, call);
      if (!resolved)
        return;
      any_read |= reads(resolved->mode);
      any_write |= writes(resolved->mode);
      if (kernel_.tensors[access.tensor].kind == TensorKind::Pool)
        node.elements += resolved->range.hi - resolved->range.lo;
      node.accesses.push_back(std::move(*resolved));
    }
    node.role = any_read && any_write ? Role::ProducerConsumer
                : any_write           ? Role::Producer
                : any_read            ? Role::Consumer
                                      : Role::Neither;
    if (in_window_) {
      node.template_index = body_call_++;
      node.iteration = iteration_;
      node.env = env;
    }
    current_.graph.nodes.push_back(std::move(node));
    ++total_nodes_;
  }

  // Node ids: p/c/x/n + the K-th of its role in program order, across regions. In a
  // symbolic loop's window, each body call is named once and instance t is "<name>@t".
  void name_nodes(Region& region) {
    auto next_name = [&](Role role) {
      // A char: GCC 12 reports a false -Wrestrict for "p" + std::to_string(...) (GCC bug 105651).
      const char prefix = role == Role::Producer           ? 'p'
                          : role == Role::Consumer         ? 'c'
                          : role == Role::ProducerConsumer ? 'x'
                                                           : 'n';
      return prefix + std::to_string(++role_count_[role]);
    };
    if (region.kind == Region::Kind::Expanded) {
      for (auto& node : region.graph.nodes)
        node.id = next_name(node.role);
      return;
    }
    std::vector<std::string> names;
    for (auto& node : region.graph.nodes) {
      if (node.iteration == 0)
        names.push_back(next_name(node.role));
      node.id = names[node.template_index] + "@" + std::to_string(node.iteration);
    }
  }

  void add_control_and_data_edges(Graph& graph) {
    std::map<int, int> last_of_warp;
    for (int n = 0; n < static_cast<int>(graph.nodes.size()); ++n) {
      auto [it, first] = last_of_warp.try_emplace(graph.nodes[n].warp, n);
      if (!first) {
        graph.edges.push_back({it->second, n, EdgeKind::Control, {}});
        it->second = n;
      }
    }
    std::vector<IntervalMap<int>> last_writer(graph.spaces.size(), IntervalMap<int>(-1));
    std::map<std::pair<int, int>, int> data_edges;
    for (int n = 0; n < static_cast<int>(graph.nodes.size()); ++n) {
      for (const auto& access : graph.nodes[n].accesses) {
        if (!reads(access.mode))
          continue;
        last_writer[access.space].for_each(
            access.range.lo, access.range.hi, [&](std::int64_t lo, std::int64_t hi, int& writer) {
              if (writer < 0 || writer == n)
                return;
              auto [it, inserted] =
                  data_edges.try_emplace({writer, n}, static_cast<int>(graph.edges.size()));
              if (inserted)
                graph.edges.push_back({writer, n, EdgeKind::Data, {}});
              add_label(graph.edges[it->second], access.space, {lo, hi});
            });
      }
      for (const auto& access : graph.nodes[n].accesses)
        if (writes(access.mode))
          last_writer[access.space].assign(access.range.lo, access.range.hi, n);
    }
  }

  void finish_region() {
    if (failed_)
      return;
    Region region = std::move(current_);
    current_ = Region{};
    current_.graph.spaces = spaces_;
    if (region.graph.nodes.empty())
      return;
    name_nodes(region);
    add_control_and_data_edges(region.graph);
    regions_.push_back(std::move(region));
  }

  const Kernel& kernel_;
  Diagnostics& diags_;
  const CdfgOptions& options_;
  std::vector<Space> spaces_;
  std::map<int, int> ref_space_;
  std::vector<Region> regions_;
  Region current_;
  std::map<Role, int> role_count_;
  std::int64_t total_nodes_ = 0;
  std::vector<Condition> guards_; // the run-time conditions around the current call (walk_if)
  bool in_window_ = false;
  std::string window_var_; // the variable of the symbolic loop being expanded (in_window_)
  std::set<int> whole_refs_; // tensor_refs treated as one unit in the current symbolic loop
  int iteration_ = 0;
  int body_call_ = 0;
  bool failed_ = false;
  bool call_limit_reached_ = false;
  // Loops a note already said cannot be kept: an inner loop is met once per outer iteration.
  std::set<const ScheduleNode*> noted_loops_;
};

} // namespace

CdfgRegions build_regions(const Kernel& kernel, Diagnostics& diags, const CdfgOptions& options) {
  return Expander(kernel, diags, options).run();
}

Graph build_cdfg(const Kernel& kernel, Diagnostics& diags, const CdfgOptions& options) {
  auto regions = build_regions(kernel, diags, options).regions;
  if (regions.empty())
    return Graph{};
  if (regions.size() > 1 || regions[0].kind != Region::Kind::Expanded) {
    diags.error(kernel.loc,
                "internal: build_cdfg on a kernel with symbolic loops; use build_regions");
    return Graph{};
  }
  return std::move(regions[0].graph);
}

} // namespace s2p::passes
