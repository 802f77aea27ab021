// Kernel versions (pass_manager/kernel_versions): conditions on kernel parameters alone become
// one version of the kernel per combination of their values, each with them resolved;
// conditions that a loop variable decides (here one shadowing the parameter) stay.
#include "pass_manager/kernel_versions.h"

#include <gtest/gtest.h>

namespace {

using namespace s2p;
using ir::Condition;
using ir::Expr;
using ir::ScheduleNode;

Condition greater(const std::string& var, std::int64_t value) {
  Condition c;
  c.op = Condition::Op::Greater;
  c.lhs = Expr::variable(var);
  c.rhs = Expr::constant(value);
  c.text = var + " > " + std::to_string(value);
  return c;
}

ScheduleNode call(const std::string& callee) {
  ScheduleNode node;
  node.kind = ScheduleNode::Kind::Call;
  node.call.callee = callee;
  return node;
}

ScheduleNode if_then(Condition c, ScheduleNode then) {
  ScheduleNode node;
  node.kind = ScheduleNode::Kind::If;
  node.condition = std::move(c);
  ScheduleNode block;
  block.kind = ScheduleNode::Kind::Block;
  block.children.push_back(std::move(then));
  node.children.push_back(std::move(block));
  return node;
}

// if (n > 1) a();  for (n = 0; n < 3; ++n) if (n > 1) b();
ir::Kernel shadowing_kernel() {
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.symbols = {"n"};
  kernel.root.kind = ScheduleNode::Kind::Kernel;
  kernel.root.children.push_back(if_then(greater("n", 1), call("a")));
  ScheduleNode loop;
  loop.kind = ScheduleNode::Kind::Loop;
  loop.name = "n";
  loop.bound = Expr::constant(3);
  loop.children.push_back(if_then(greater("n", 1), call("b")));
  kernel.root.children.push_back(std::move(loop));
  return kernel;
}

TEST(KernelVersions, ParameterConditionsAreResolvedPerVersion) {
  ir::Diagnostics diags;
  const auto versions = pass_manager::kernel_versions(shadowing_kernel(), diags);
  ASSERT_TRUE(versions.has_value());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].guard, "(n > 1)");
  EXPECT_EQ((*versions)[1].guard, ""); // the else
  // Taken: the branch's block; not taken (no else): an empty block.
  const auto& taken = (*versions)[0].kernel.root.children[0];
  EXPECT_EQ(taken.kind, ScheduleNode::Kind::Block);
  ASSERT_EQ(taken.children.size(), 1u);
  EXPECT_EQ(taken.children[0].call.callee, "a");
  const auto& skipped = (*versions)[1].kernel.root.children[0];
  EXPECT_EQ(skipped.kind, ScheduleNode::Kind::Block);
  EXPECT_TRUE(skipped.children.empty());
  // The loop variable n shadows the parameter: its `n > 1` stays a condition.
  for (const auto& version : *versions)
    EXPECT_EQ(version.kernel.root.children[1].children[0].kind, ScheduleNode::Kind::If);
}

TEST(KernelVersions, NoParameterConditionIsOneVersion) {
  ir::Kernel kernel = shadowing_kernel();
  kernel.root.children.erase(kernel.root.children.begin());
  ir::Diagnostics diags;
  const auto versions = pass_manager::kernel_versions(kernel, diags);
  ASSERT_TRUE(versions.has_value());
  EXPECT_EQ(versions->size(), 1u);
  EXPECT_EQ(pass_manager::select_version(*versions, {"{ body }"}), "{ body }");
}

TEST(KernelVersions, AFourthDistinctConditionIsAnError) {
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.symbols = {"a", "b", "c", "d"};
  kernel.root.kind = ScheduleNode::Kind::Kernel;
  for (const char* p : {"a", "b", "a", "c", "d"})
    kernel.root.children.push_back(if_then(greater(p, 0), call("f")));
  ir::Diagnostics diags;
  EXPECT_FALSE(pass_manager::kernel_versions(kernel, diags).has_value());
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_NE(diags.items()[0].message.find("'d > 0'"), std::string::npos) << diags.items()[0].message;
  // Three distinct: eight versions, guards in order, the last one the else.
  kernel.root.children.pop_back();
  ir::Diagnostics fine;
  const auto versions = pass_manager::kernel_versions(kernel, fine);
  ASSERT_TRUE(versions.has_value());
  ASSERT_EQ(versions->size(), 8u);
  EXPECT_EQ((*versions)[0].guard, "(a > 0) && (b > 0) && (c > 0)");
  EXPECT_EQ((*versions)[6].guard, "!(a > 0) && !(b > 0) && (c > 0)");
  EXPECT_EQ((*versions)[7].guard, "");
}

} // namespace
