#include "pass_manager/substitute_variants.h"

#include <algorithm>
#include <memory>
#include <string>

namespace s2p::pass_manager {

namespace {

const ir::VariantGroup* group_of(const std::vector<ir::VariantGroup>& groups, const std::string& name) {
  for (const auto& group : groups)
    for (const auto& member : group.members)
      if (member.name == name)
        return &group;
  return nullptr;
}

const ir::VariantGroup::Member* member_of(const ir::VariantGroup& group, const std::string& name) {
  for (const auto& member : group.members)
    if (member.name == name)
      return &member;
  return nullptr;
}

std::string members_text(const ir::VariantGroup& group) {
  std::string out;
  for (const auto& member : group.members)
    out += (out.empty() ? "" : ", ") + member.name;
  return out;
}

// Rewrites every call of `op` under `node` to call `variant`; returns how many.
int substitute(ir::ScheduleNode& node, const std::string& op, const ir::VariantGroup::Member& variant) {
  int count = 0;
  if (node.kind == ir::ScheduleNode::Kind::Call && node.call.callee == op) {
    ir::CallSite& call = node.call;
    const std::size_t name = call.text.rfind(op, call.text.find('('));
    if (name != std::string::npos) {
      call.holes.push_back({name, op.size(), std::nullopt, variant.name});
      call.callee = variant.name;
      call.cost = variant.cost;
      call.parameters = variant.parameters;
      ++count;
    }
  }
  for (auto& child : node.children)
    count += substitute(child, op, variant);
  return count;
}

int substitute_kernel(ir::Kernel& kernel, const std::string& op, const ir::VariantGroup::Member& variant) {
  int count = substitute(kernel.root, op, variant);
  if (kernel.multi_tile)
    for (auto& step : kernel.multi_tile->steps)
      if (step.task) {
        auto task = std::make_shared<ir::Kernel>(*step.task);
        count += substitute_kernel(*task, op, variant);
        step.task = std::move(task);
      }
  return count;
}

std::string field(const VariantUse& use, const char* name) {
  return "plan " + use.plan_file + ": field 'variants[" + std::to_string(use.index) + "]." + name + "': ";
}

} // namespace

std::optional<ir::Kernel> substitute_variants(const ir::Kernel& kernel, const std::vector<VariantUse>& uses,
                                              const ir::SourceLocation& declared_at, ir::Diagnostics& diags) {
  ir::Kernel out = kernel;
  for (const VariantUse& use : uses) {
    const ir::VariantGroup* group = group_of(kernel.variants, use.op);
    if (!group) {
      diags.error(declared_at, field(use, "op") + "'" + use.op +
                                   "' is not an intrinsic an S2P_VARIANTS of this file names");
      return std::nullopt;
    }
    const auto* variant = member_of(*group, use.variant);
    if (!variant) {
      diags.error(declared_at, field(use, "variant") + "'" + use.variant + "' is not a variant of '" + use.op +
                                   "' (the S2P_VARIANTS at line " + std::to_string(group->loc.line) +
                                   " declares " + members_text(*group) + ")");
      return std::nullopt;
    }
    if (use.variant != use.op && substitute_kernel(out, use.op, *variant) == 0) {
      diags.error(declared_at, field(use, "op") + "kernel '" + kernel.name + "' calls no '" + use.op + "'");
      return std::nullopt;
    }
  }
  return out;
}

} // namespace s2p::pass_manager
