#include "pass_manager/kernel_versions.h"

#include <algorithm>
#include <map>
#include <set>

namespace s2p::pass_manager {

using ir::Condition;
using ir::ScheduleNode;

namespace {

// The conditions of If nodes whose variables are all kernel parameters, none shadowed by an
// enclosing loop's variable: one entry per distinct condition (by its C++ text), in order.
class ParameterConditions {
public:
  explicit ParameterConditions(const ir::Kernel& kernel)
      : symbols_(kernel.symbols.begin(), kernel.symbols.end()) {}

  void collect(const ScheduleNode& node) {
    if (node.kind == ScheduleNode::Kind::Loop)
      loop_vars_.push_back(node.name);
    if (const auto text = eligible(node); text && !index_.contains(*text)) {
      index_[*text] = static_cast<int>(found_.size());
      found_.push_back(&node);
    }
    for (const auto& child : node.children)
      collect(child);
    if (node.kind == ScheduleNode::Kind::Loop)
      loop_vars_.pop_back();
  }

  // Replaces each parameter condition by the branch `values` selects (an empty block when
  // there is no else).
  void resolve(ScheduleNode& node, const std::vector<bool>& values) {
    if (node.kind == ScheduleNode::Kind::Loop)
      loop_vars_.push_back(node.name);
    for (auto& child : node.children)
      resolve(child, values);
    if (node.kind == ScheduleNode::Kind::Loop)
      loop_vars_.pop_back();
    const auto text = eligible(node);
    if (!text)
      return;
    const bool holds = values[static_cast<std::size_t>(index_.at(*text))];
    const std::size_t branch = holds ? 0 : 1;
    ScheduleNode taken;
    taken.kind = ScheduleNode::Kind::Block;
    taken.loc = node.loc;
    if (branch < node.children.size())
      taken = std::move(node.children[branch]);
    node = std::move(taken);
  }

  const std::vector<const ScheduleNode*>& found() const { return found_; }

private:
  // The condition's text when `node` is an If on parameters alone in the current scope.
  std::optional<std::string> eligible(const ScheduleNode& node) const {
    if (node.kind != ScheduleNode::Kind::If)
      return std::nullopt;
    const auto names = node.condition.variables();
    const bool on_parameters =
        !names.empty() && std::all_of(names.begin(), names.end(), [&](const std::string& v) {
          return symbols_.contains(v) &&
                 std::find(loop_vars_.begin(), loop_vars_.end(), v) == loop_vars_.end();
        });
    return on_parameters ? std::optional<std::string>(condition_to_cpp(node.condition))
                         : std::nullopt;
  }

  std::set<std::string> symbols_;
  std::vector<std::string> loop_vars_;
  std::vector<const ScheduleNode*> found_;
  std::map<std::string, int> index_;
};

std::string guard_text(const std::vector<const ScheduleNode*>& conditions,
                       const std::vector<bool>& values) {
  std::string guard;
  for (std::size_t i = 0; i < conditions.size(); ++i)
    guard += std::string(i ? " && " : "") + (values[i] ? "" : "!") + "(" +
             condition_to_cpp(conditions[i]->condition) + ")";
  return guard;
}

} // namespace

std::string condition_to_cpp(const Condition& c) {
  switch (c.op) {
  case Condition::Op::Constant:
    return c.value ? "true" : "false";
  case Condition::Op::Not:
    return "!(" + condition_to_cpp(c.operands.at(0)) + ")";
  case Condition::Op::And:
  case Condition::Op::Or:
    return "(" + condition_to_cpp(c.operands.at(0)) + ") " + ir::to_string(c.op) + " (" +
           condition_to_cpp(c.operands.at(1)) + ")";
  default:
    return c.lhs.to_cpp() + " " + ir::to_string(c.op) + " " + c.rhs.to_cpp();
  }
}

std::optional<std::vector<KernelVersion>> kernel_versions(const ir::Kernel& kernel,
                                                          ir::Diagnostics& diags) {
  ParameterConditions conditions(kernel);
  conditions.collect(kernel.root);
  const auto& found = conditions.found();
  if (found.empty())
    return std::vector<KernelVersion>{{kernel, ""}};
  if (static_cast<int>(found.size()) > kMaxParameterConditions) {
    const ScheduleNode& extra = *found[kMaxParameterConditions];
    diags.error(extra.loc,
                "the condition '" + extra.condition.text + "' is kernel '" + kernel.name + "''s " +
                    std::to_string(kMaxParameterConditions + 1) +
                    "th distinct condition on kernel parameters alone; seq2par generates a "
                    "version of the kernel for each combination of their values, at most " +
                    std::to_string(1 << kMaxParameterConditions) +
                    ": combine conditions, or split the kernel");
    return std::nullopt;
  }
  std::vector<KernelVersion> versions;
  const std::size_t count = std::size_t{1} << found.size();
  for (std::size_t mask = 0; mask < count; ++mask) {
    std::vector<bool> values(found.size());
    for (std::size_t i = 0; i < found.size(); ++i)
      values[i] = ((mask >> (found.size() - 1 - i)) & 1) == 0; // all true first
    KernelVersion version{kernel, mask + 1 < count ? guard_text(found, values) : ""};
    conditions.resolve(version.kernel.root, values);
    versions.push_back(std::move(version));
  }
  return versions;
}

std::string select_version(const std::vector<KernelVersion>& versions,
                           const std::vector<std::string>& bodies) {
  if (versions.size() == 1)
    return bodies.front();
  std::string out = "{\n// seq2par: one version of the kernel per value of its conditions on "
                    "parameters\n";
  for (std::size_t v = 0; v < versions.size(); ++v) {
    if (!versions[v].guard.empty())
      out += std::string(v ? "else " : "") + "if (" + versions[v].guard + ")\n";
    else
      out += "else\n";
    out += bodies[v] + "\n";
  }
  return out + "}";
}

} // namespace s2p::pass_manager
