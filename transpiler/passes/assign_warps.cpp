#include "passes/assign_warps.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

namespace s2p::passes {

using namespace s2p::ir;

namespace {

// Iterations a loop with a run-time trip count is assumed to run, for the cost estimate.
constexpr std::int64_t kNominalTrips = 64;
// Loop iterations visited one by one before the estimate multiplies instead.
constexpr std::int64_t kCountingBudget = 2'000'000;

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

// --- S2P_COST: constants, + - * /, parentheses and `param.size()` ---

class CostReader {
public:
  CostReader(std::string_view text, const std::map<std::string, std::int64_t>& sizes)
      : text_(text), sizes_(sizes) {}

  std::optional<std::int64_t> read() {
    auto value = sum();
    skip_space();
    return value && pos_ == text_.size() ? value : std::nullopt;
  }

private:
  std::optional<std::int64_t> sum() {
    auto value = product();
    while (value && (peek('+') || peek('-'))) {
      const char op = text_[pos_++];
      auto rhs = product();
      if (!rhs)
        return std::nullopt;
      value = op == '+' ? *value + *rhs : *value - *rhs;
    }
    return value;
  }
  std::optional<std::int64_t> product() {
    auto value = factor();
    while (value && (peek('*') || peek('/'))) {
      const char op = text_[pos_++];
      auto rhs = factor();
      if (!rhs || (op == '/' && *rhs == 0))
        return std::nullopt;
      value = op == '*' ? saturating_mul(*value, *rhs) : *value / *rhs;
    }
    return value;
  }
  std::optional<std::int64_t> factor() {
    if (peek('(')) {
      ++pos_;
      auto value = sum();
      if (!value || !peek(')'))
        return std::nullopt;
      ++pos_;
      return value;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return number();
    return size_of_parameter();
  }
  std::optional<std::int64_t> number() {
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      value = saturating_add(saturating_mul(value, 10), text_[pos_++] - '0');
    while (pos_ < text_.size() && text_[pos_] != '\0' && std::strchr("uUlL", text_[pos_]))
      ++pos_;
    return value;
  }
  std::optional<std::int64_t> size_of_parameter() {
    const std::size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    const auto found = sizes_.find(std::string(text_.substr(begin, pos_ - begin)));
    for (const char* token : {".", "size", "(", ")"}) {
      skip_space();
      if (text_.substr(pos_, std::strlen(token)) != token)
        return std::nullopt;
      pos_ += std::strlen(token);
    }
    if (found == sizes_.end())
      return std::nullopt;
    return found->second;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  std::string_view text_;
  const std::map<std::string, std::int64_t>& sizes_;
  std::size_t pos_ = 0;
};

// Elements of each access; a tensor_ref's size is only known at run time, so it counts as
// the call's largest pool access (a load copies what it writes).
std::vector<std::int64_t> access_elements(const std::vector<Tensor>& tensors,
                                          const CallSite& call) {
  std::vector<std::int64_t> elements;
  std::int64_t largest = 1;
  for (const auto& access : call.accesses) {
    const Tensor& tensor = tensors[access.tensor];
    std::int64_t n = -1;
    if (tensor.kind == TensorKind::Pool)
      n = access.whole ? tensor.sub_tensor_count() * tensor.sub_size : tensor.sub_size;
    largest = std::max(largest, n);
    elements.push_back(n);
  }
  for (auto& n : elements)
    if (n < 0)
      n = largest;
  return elements;
}

// The declared name of a parameter ("s2p::in<float> b" -> "b") and whether it is a view.
std::pair<std::string, bool> parameter(const std::string& declaration) {
  std::size_t end = declaration.size();
  std::size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(declaration[begin - 1])) ||
                       declaration[begin - 1] == '_'))
    --begin;
  const std::string type = declaration.substr(0, begin);
  bool view = false;
  for (const char* wrapper : {"in<", "out<", "inout<", "view<"})
    view |= type.find(std::string("s2p::") + wrapper) != std::string::npos;
  return {declaration.substr(begin, end - begin), view};
}

// --- how often each call runs ---

class InstanceCounter {
public:
  std::map<const CallSite*, std::int64_t> run(const ScheduleNode& root) {
    Bindings env;
    walk(root, env, 1);
    return std::move(counts_);
  }

private:
  void walk(const ScheduleNode& node, Bindings& env, std::int64_t weight) {
    switch (node.kind) {
    case ScheduleNode::Kind::Call:
      counts_[&node.call] = saturating_add(counts_[&node.call], weight);
      ++visits_;
      return;
    case ScheduleNode::Kind::Loop:
      return walk_loop(node, env, weight);
    case ScheduleNode::Kind::If: {
      // A condition known here decides its branch; one that is not counts both (an upper
      // bound: the estimate only balances warps, it decides nothing about correctness).
      const auto taken = node.condition.evaluate(env);
      for (std::size_t c = 0; c < node.children.size(); ++c)
        if (!taken || *taken == (c == 0))
          walk(node.children[c], env, weight);
      return;
    }
    default:
      for (const auto& child : node.children)
        walk(child, env, weight);
    }
  }

  void walk_loop(const ScheduleNode& loop, Bindings& env, std::int64_t weight) {
    const auto init = loop.init.evaluate(env);
    const auto bound = loop.bound.evaluate(env);
    const std::size_t scope = env.size();
    if (!init || !bound) { // a run-time trip count: a nominal one
      for (const auto& child : loop.children)
        walk(child, env, saturating_mul(weight, kNominalTrips));
      return;
    }
    const __int128 span = loop.step > 0 ? __int128{*bound} - *init : __int128{*init} - *bound;
    const __int128 step = loop.step > 0 ? loop.step : -__int128{loop.step};
    const std::int64_t trips = static_cast<std::int64_t>(std::clamp<__int128>(
        (span + step - 1) / step, 0, std::numeric_limits<std::int64_t>::max()));
    if (visits_ + trips > kCountingBudget) { // past the budget: the first iteration stands for all
      env.bind(loop.name, *init);
      for (const auto& child : loop.children)
        walk(child, env, saturating_mul(weight, trips));
      env.truncate(scope);
      return;
    }
    visits_ += trips; // iterations are work too (a loop without calls)
    for (std::int64_t t = 0; t < trips; ++t) {
      env.bind(loop.name, *init + t * loop.step);
      for (const auto& child : loop.children)
        walk(child, env, weight);
      env.truncate(scope);
    }
  }

  std::map<const CallSite*, std::int64_t> counts_;
  std::int64_t visits_ = 0;
};

// --- the partition ---

struct Site {
  CallSite* call = nullptr;
  WarpRole role = WarpRole::Compute;
  std::string why;
  std::int64_t cost = 0;
  std::size_t order = 0; // program order
};

void collect(ScheduleNode& node, std::vector<CallSite*>& calls) {
  if (node.kind == ScheduleNode::Kind::Call)
    calls.push_back(&node.call);
  for (auto& child : node.children)
    collect(child, calls);
}

// Cuts `costs` (in order) into at most `groups` consecutive runs minimizing the largest
// run's sum; returns the first index of each run. Ties keep runs as early as possible.
std::vector<std::size_t> balanced_cuts(const std::vector<std::int64_t>& costs, int groups) {
  const std::size_t n = costs.size();
  const std::size_t g = std::min<std::size_t>(static_cast<std::size_t>(groups), n);
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max();
  // best[k][i]: the smallest largest run cutting the first i sites into k runs.
  std::vector<std::vector<std::int64_t>> best(g + 1, std::vector<std::int64_t>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> from(g + 1, std::vector<std::size_t>(n + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= g; ++k)
    for (std::size_t i = k; i <= n; ++i) {
      std::int64_t run = 0;
      for (std::size_t j = i; j-- > k - 1;) { // the last run is [j, i)
        run = saturating_add(run, costs[j]);
        if (best[k - 1][j] == kInf)
          continue;
        const std::int64_t worst = std::max(best[k - 1][j], run);
        if (worst < best[k][i] || (worst == best[k][i] && j < from[k][i])) {
          best[k][i] = worst;
          from[k][i] = j;
        }
      }
    }
  std::vector<std::size_t> starts;
  for (std::size_t k = g, i = n; k > 0; --k) {
    starts.push_back(from[k][i]);
    i = from[k][i];
  }
  std::reverse(starts.begin(), starts.end());
  return starts;
}

std::string group_rule(const Site& site, int warp, std::size_t group, std::size_t groups,
                       std::int64_t group_cost) {
  return std::string(to_string(site.role)) + ": " + site.why + "; warp " + std::to_string(warp) +
         " = group " + std::to_string(group + 1) + " of " + std::to_string(groups) +
         " (sites in load -> compute -> store order, cut to balance estimated cost: this site " +
         std::to_string(site.cost) + ", its group " + std::to_string(group_cost) + ")";
}

// Every call under `root`, in program order, with its role and estimated cost.
std::vector<Site> describe_sites(ScheduleNode& root, const std::vector<Tensor>& tensors) {
  std::vector<CallSite*> calls;
  collect(root, calls);
  const auto counts = InstanceCounter().run(root);
  std::vector<Site> sites;
  for (CallSite* call : calls) {
    Site site{call, WarpRole::Compute, "", 0, sites.size()};
    site.role = warp_role(tensors, *call, &site.why);
    const auto count = counts.find(call);
    site.cost = saturating_mul(instance_cost(tensors, *call),
                               count == counts.end() ? 0 : count->second);
    sites.push_back(std::move(site));
  }
  return sites;
}


// Sites reaching the same mutable state (CallSite::shared_state), transitively: each set
// must run on one warp. Sets in the order of their first site; a site alone is a set.
std::vector<std::vector<std::size_t>> state_units(const std::vector<Site>& sites) {
  std::vector<std::size_t> parent(sites.size());
  for (std::size_t s = 0; s < sites.size(); ++s)
    parent[s] = s;
  auto find = [&](std::size_t s) {
    while (parent[s] != s)
      s = parent[s] = parent[parent[s]];
    return s;
  };
  std::map<std::string, std::size_t> first_reaching;
  for (std::size_t s = 0; s < sites.size(); ++s)
    for (const auto& key : sites[s].call->shared_state) {
      auto [it, first] = first_reaching.try_emplace(key, s);
      if (!first)
        parent[find(s)] = find(it->second);
    }
  std::map<std::size_t, std::size_t> unit_of_root;
  std::vector<std::vector<std::size_t>> units;
  for (std::size_t s = 0; s < sites.size(); ++s) {
    auto [it, first] = unit_of_root.try_emplace(find(s), units.size());
    if (first)
      units.emplace_back();
    units[it->second].push_back(s);
  }
  return units;
}

// A set with an annotated call: the annotation decides for the whole set (the front end
// checked that annotated calls sharing state agree). Returns false if none is annotated.
bool follow_annotation(std::vector<Site>& sites, const std::vector<std::size_t>& members) {
  const Site* annotated = nullptr;
  for (std::size_t s : members)
    if (sites[s].call->warp >= 0 && !annotated)
      annotated = &sites[s];
  if (!annotated)
    return false;
  const int warp = annotated->call->warp;
  for (std::size_t s : members) {
    Site& site = sites[s];
    const bool own = site.call->warp >= 0;
    site.call->warp_choice = WarpChoice{
        site.role, own, site.cost,
        std::string(to_string(site.role)) + ": " + site.why +
            (own ? "; annotated: keeps warp " + std::to_string(warp)
                 : "; warp " + std::to_string(warp) + ": reaches mutable state '" +
                       site.call->shared_state.front() + "' as the annotated call '" +
                       annotated->call->callee + "' on that warp does")};
    site.call->warp = warp;
  }
  return true;
}

struct Unit {
  std::vector<std::size_t> sites;
  WarpRole role = WarpRole::Compute; // the earliest role of its sites
  std::size_t order = 0;             // its first site's
  std::int64_t cost = 0;
};

Unit make_unit(const std::vector<Site>& sites, const std::vector<std::size_t>& members) {
  Unit unit{members, sites[members.front()].role, sites[members.front()].order, 0};
  for (std::size_t s : members) {
    unit.role = std::min(unit.role, sites[s].role);
    unit.cost = saturating_add(unit.cost, sites[s].cost);
  }
  return unit;
}

std::string shared_state_note(const Site& site, std::size_t unit_size) {
  if (unit_size < 2 || site.call->shared_state.empty())
    return "";
  return "; placed with the " + std::to_string(unit_size - 1) +
         " other call(s) reaching mutable state '" + site.call->shared_state.front() +
         "' (one warp runs them in program order)";
}

} // namespace

WarpRole warp_role(const std::vector<Tensor>& tensors, const CallSite& call, std::string* why) {
  std::string reads_ref, writes_ref, writes_pool;
  for (const auto& access : call.accesses) {
    const Tensor& tensor = tensors[access.tensor];
    const bool ref = tensor.kind == TensorKind::Ref;
    if (ref && writes(access.mode) && writes_ref.empty())
      writes_ref = tensor.name;
    if (ref && reads(access.mode) && reads_ref.empty())
      reads_ref = tensor.name;
    if (!ref && writes(access.mode) && writes_pool.empty())
      writes_pool = tensor.name;
  }
  WarpRole role = WarpRole::Compute;
  std::string words = "reads and writes only pool tensors";
  if (!writes_ref.empty()) {
    role = WarpRole::Store;
    words = "writes tensor_ref '" + writes_ref + "'";
  } else if (!reads_ref.empty()) {
    role = WarpRole::Load;
    words = "reads tensor_ref '" + reads_ref + "'" +
            (writes_pool.empty() ? "" : ", writes pool tensor '" + writes_pool + "'");
  }
  if (why)
    *why = std::move(words);
  return role;
}

std::int64_t instance_cost(const std::vector<Tensor>& tensors, const CallSite& call) {
  const auto elements = access_elements(tensors, call);
  if (!call.cost.empty()) {
    std::map<std::string, std::int64_t> sizes;
    std::size_t a = 0;
    for (const auto& declaration : call.parameters) {
      auto [name, view] = parameter(declaration);
      if (view && a < elements.size())
        sizes[name] = elements[a++];
    }
    if (a == elements.size())
      if (auto cost = CostReader(call.cost, sizes).read(); cost && *cost >= 0)
        return std::max<std::int64_t>(1, *cost);
  }
  std::int64_t total = 0;
  for (auto n : elements)
    total = saturating_add(total, n);
  return std::max<std::int64_t>(1, total);
}

void assign_warps(ScheduleNode& root, const std::vector<Tensor>& tensors,
                  const AutoWarpOptions& options) {
  std::vector<Site> sites = describe_sites(root, tensors);
  int last_annotated = -1;
  for (const Site& site : sites)
    last_annotated = std::max(last_annotated, site.call->warp);
  std::vector<Unit> units;
  for (const auto& members : state_units(sites))
    if (!follow_annotation(sites, members))
      units.push_back(make_unit(sites, members));
  if (units.empty())
    return;
  std::sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) {
    return std::tie(a.role, a.order) < std::tie(b.role, b.order);
  });
  std::vector<std::int64_t> costs;
  for (const auto& unit : units)
    costs.push_back(unit.cost);
  const int wanted = options.warps > 0
                         ? options.warps
                         : std::min<int>(static_cast<int>(units.size()), kDefaultAutoWarps);
  const auto starts = balanced_cuts(costs, wanted);
  for (std::size_t g = 0; g < starts.size(); ++g) {
    const std::size_t end = g + 1 < starts.size() ? starts[g + 1] : units.size();
    std::int64_t group_cost = 0;
    for (std::size_t u = starts[g]; u < end; ++u)
      group_cost = saturating_add(group_cost, units[u].cost);
    const int warp = last_annotated + 1 + static_cast<int>(g);
    for (std::size_t u = starts[g]; u < end; ++u)
      for (std::size_t s : units[u].sites) {
        Site& site = sites[s];
        site.call->warp = warp;
        site.call->warp_choice =
            WarpChoice{site.role, false, site.cost,
                       group_rule(site, warp, g, starts.size(), group_cost) +
                           shared_state_note(site, units[u].sites.size())};
      }
  }
}

void assign_warps(Kernel& kernel, const AutoWarpOptions& options) {
  assign_warps(kernel.root, kernel.tensors, options);
}

} // namespace s2p::passes
