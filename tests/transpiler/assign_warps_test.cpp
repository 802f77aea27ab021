// --auto-warps on hand-built IR: roles by what a call accesses, the balanced cut of the
// load -> compute -> store order into warps, annotated calls kept, costs from S2P_COST.
// And static conditions in the expander: only the taken branch becomes nodes.
#include "ir_builder.h"

#include "passes/assign_warps.h"
#include "passes/build_cdfg.h"
#include "passes/warp_split.h"

#include <gtest/gtest.h>

namespace s2p::test {
namespace {

using passes::AutoWarpOptions;

std::vector<const ir::CallSite*> calls_of(const ir::ScheduleNode& node) {
  std::vector<const ir::CallSite*> out;
  if (node.kind == ScheduleNode::Kind::Call)
    out.push_back(&node.call);
  for (const auto& child : node.children)
    for (const auto* c : calls_of(child))
      out.push_back(c);
  return out;
}

ir::Kernel unannotated_ring(Expr trips, const std::string& symbol = "") {
  ir::Kernel kernel = ring_pipeline(3, std::move(trips), symbol);
  for (auto& call : kernel.root.children[0].children)
    call.call.warp = -1;
  return kernel;
}

TEST(AssignWarps, RolesFollowWhatACallAccesses) {
  const ir::Kernel kernel = ring_pipeline(3, lit(6));
  const auto calls = calls_of(kernel.root);
  std::string why;
  EXPECT_EQ(passes::warp_role(kernel.tensors, *calls[0], &why), ir::WarpRole::Load);
  EXPECT_EQ(why, "reads tensor_ref 'src', writes pool tensor 'in_slots'");
  EXPECT_EQ(passes::warp_role(kernel.tensors, *calls[1], &why), ir::WarpRole::Compute);
  EXPECT_EQ(passes::warp_role(kernel.tensors, *calls[2], &why), ir::WarpRole::Store);
  EXPECT_EQ(why, "writes tensor_ref 'dst'");
}

TEST(AssignWarps, OneWarpPerStageByDefault) {
  ir::Kernel kernel = unannotated_ring(lit(12));
  passes::assign_warps(kernel, {});
  const auto calls = calls_of(kernel.root);
  ASSERT_EQ(calls.size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(calls[c]->warp, c) << calls[c]->callee;
    ASSERT_TRUE(calls[c]->warp_choice);
    EXPECT_FALSE(calls[c]->warp_choice->annotated);
    EXPECT_EQ(calls[c]->warp_choice->cost, 12 * 20); // 12 instances of 10 + 10 elements
  }
  EXPECT_EQ(calls[0]->warp_choice->rule.rfind("load: reads tensor_ref 'src'", 0), 0u)
      << calls[0]->warp_choice->rule;
  // The assigned kernel goes through the warp split like an annotated one.
  ir::Diagnostics diags;
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  EXPECT_FALSE(diags.has_errors());
  EXPECT_EQ(plan.warps, (std::vector<int>{0, 1, 2}));
}

TEST(AssignWarps, FewerWarpsMergeNeighbouringRolesWhereItBalances) {
  KernelBuilder b("k");
  const int pool = b.pool("smem", 300);
  const int a = b.tensor("a", pool, 0, 2, 100);
  const int c = b.tensor("c", pool, 200, 1, 10);
  const int src = b.ref("src");
  const int dst = b.ref("dst");
  const auto slot = Expr::binary(Expr::Op::Rem, var("i"), lit(2));
  b.add(KernelBuilder::loop(
      "i", lit(0), lit(4),
      {b.call("load", -1, {{src, var("i"), AccessMode::Read}, {a, slot, AccessMode::Write}}),
       b.call("reduce", -1, {{a, slot, AccessMode::Read}, {c, lit(0), AccessMode::Write}}),
       b.call("store", -1, {{c, lit(0), AccessMode::Read}, {dst, var("i"), AccessMode::Write}})}));
  ir::Kernel kernel = b.kernel();
  passes::assign_warps(kernel, AutoWarpOptions{2});
  const auto calls = calls_of(kernel.root);
  // load 4 x 200, reduce 4 x 110, store 4 x 20: {load} | {reduce, store} is the balanced cut.
  EXPECT_EQ(calls[0]->warp, 0);
  EXPECT_EQ(calls[1]->warp, 1);
  EXPECT_EQ(calls[2]->warp, 1);
  passes::assign_warps(kernel, AutoWarpOptions{1}); // now every call has a warp: kept
  EXPECT_EQ(calls[0]->warp, 0);
  EXPECT_TRUE(calls[0]->warp_choice->annotated);
}

TEST(AssignWarps, AnnotatedCallsKeepTheirWarpAndAutomaticOnesComeAfter) {
  ir::Kernel kernel = unannotated_ring(lit(6));
  auto& body = kernel.root.children[0].children;
  body[1].call.warp = 4; // compute stays on warp 4
  passes::assign_warps(kernel, {});
  const auto calls = calls_of(kernel.root);
  EXPECT_EQ(calls[1]->warp, 4);
  EXPECT_TRUE(calls[1]->warp_choice->annotated);
  EXPECT_EQ(calls[0]->warp, 5);
  EXPECT_EQ(calls[2]->warp, 6);
}

TEST(AssignWarps, CostHintsAndLoopsWithRunTimeTripCountsWeigh) {
  KernelBuilder b("k");
  const int pool = b.pool("smem", 40);
  const int t = b.tensor("t", pool, 0, 4, 10);
  auto heavy = b.call("heavy", -1, {{t, lit(0), AccessMode::Write}});
  heavy.call.cost = "100 * (dst.size() + 2)";
  heavy.call.parameters = {"s2p::out<float> dst"};
  EXPECT_EQ(passes::instance_cost(b.kernel().tensors, heavy.call), 1200);
  heavy.call.cost = "work(dst)"; // not readable: the elements it touches
  EXPECT_EQ(passes::instance_cost(b.kernel().tensors, heavy.call), 10);

  ir::Kernel symbolic = unannotated_ring(var("n"), "n");
  passes::assign_warps(symbolic, {});
  EXPECT_EQ(calls_of(symbolic.root)[0]->warp_choice->cost, 64 * 20);
}

TEST(AssignWarps, ConditionsDecideWhichInstancesCount) {
  KernelBuilder b("k");
  const int pool = b.pool("smem", 20);
  const int t = b.tensor("t", pool, 0, 2, 10);
  ScheduleNode branch;
  branch.kind = ScheduleNode::Kind::If;
  branch.condition.op = ir::Condition::Op::Less;
  branch.condition.lhs = var("i");
  branch.condition.rhs = lit(3);
  branch.children.push_back(b.call("first", -1, {{t, lit(0), AccessMode::Write}}));
  b.add(KernelBuilder::loop("i", lit(0), lit(10), {branch}));
  ir::Kernel kernel = b.kernel();
  passes::assign_warps(kernel, {});
  EXPECT_EQ(calls_of(kernel.root)[0]->warp_choice->cost, 3 * 10);
}

TEST(AssignWarps, CallsSharingMutableStateShareAWarp) {
  ir::Kernel kernel = unannotated_ring(lit(6));
  auto& body = kernel.root.children[0].children;
  body[0].call.shared_state = {"counter"}; // load and store both reach `counter`
  body[2].call.shared_state = {"counter"};
  passes::assign_warps(kernel, {});
  auto calls = calls_of(kernel.root);
  EXPECT_EQ(calls[0]->warp, calls[2]->warp);
  EXPECT_NE(calls[0]->warp, calls[1]->warp);

  kernel = unannotated_ring(lit(6));
  kernel.root.children[0].children[1].call.shared_state = {"log"};
  kernel.root.children[0].children[2].call.shared_state = {"log"};
  kernel.root.children[0].children[2].call.warp = 3; // annotated: compute follows it
  passes::assign_warps(kernel, {});
  calls = calls_of(kernel.root);
  EXPECT_EQ(calls[1]->warp, 3);
  EXPECT_FALSE(calls[1]->warp_choice->annotated);
  EXPECT_EQ(calls[0]->warp, 4);
}

TEST(StaticConditions, OnlyTheTakenBranchIsExpanded) {
  KernelBuilder b("k");
  const int pool = b.pool("smem", 20);
  const int t = b.tensor("t", pool, 0, 2, 10);
  ScheduleNode branch;
  branch.kind = ScheduleNode::Kind::If;
  branch.condition.op = ir::Condition::Op::Equal;
  branch.condition.lhs = Expr::binary(Expr::Op::Rem, var("i"), lit(2));
  branch.condition.rhs = lit(0);
  branch.children.push_back(b.call("even", 0, {{t, lit(0), AccessMode::Write}}));
  branch.children.push_back(b.call("odd", 1, {{t, lit(1), AccessMode::Write}}));
  b.add(KernelBuilder::loop("i", lit(0), lit(5), {branch}));
  ir::Diagnostics diags;
  const ir::Graph graph = passes::build_cdfg(b.kernel(), diags);
  ASSERT_FALSE(diags.has_errors());
  ASSERT_EQ(graph.nodes.size(), 5u);
  for (std::size_t n = 0; n < 5; ++n)
    EXPECT_EQ(graph.nodes[n].call->callee, n % 2 == 0 ? "even" : "odd") << n;
}

TEST(StaticConditions, ShortCircuitSkipsAnUndefinedOperand) {
  ir::Condition nonzero{ir::Condition::Op::NotEqual, false, var("j"), lit(0), {}, "j != 0"};
  ir::Condition quotient{ir::Condition::Op::Greater, false,
                         Expr::binary(Expr::Op::Div, var("i"), var("j")), lit(1), {}, "i / j > 1"};
  ir::Condition both{ir::Condition::Op::And, false, {}, {}, {nonzero, quotient}, ""};
  ir::Bindings env;
  env.bind("i", 4);
  env.bind("j", 0);
  std::string error;
  EXPECT_EQ(both.evaluate(env, &error), false);
  EXPECT_EQ(quotient.evaluate(env, &error), std::nullopt);
  EXPECT_EQ(error, "division by zero");
}

} // namespace
} // namespace s2p::test
