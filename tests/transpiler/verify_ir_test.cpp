// The structural verifier of the warp-split IR (passes/verify_ir.h): it accepts what every
// pass leaves on the hand-built kernels, and names each invariant a broken plan breaks.
#include "ir_builder.h"
#include "passes/warp_split.h"
#include "passes/verify_ir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace s2p {
namespace {

using passes::WarpSplitPass;

// Each pass that ran on `kernel`, with what the verifier says of the plan it left.
std::vector<std::pair<WarpSplitPass, std::vector<std::string>>>
verdicts_after_each_pass(const ir::Kernel& kernel) {
  std::vector<std::pair<WarpSplitPass, std::vector<std::string>>> verdicts;
  ir::Diagnostics diags;
  passes::WarpSplitOptions options;
  options.verify = false; // the hook checks every pass itself
  passes::run_warp_split(kernel, options, diags, [&](WarpSplitPass pass, const passes::WarpSplit& plan) {
    verdicts.emplace_back(pass, passes::verify_ir(plan, pass));
  });
  EXPECT_FALSE(diags.has_errors());
  return verdicts;
}

TEST(VerifyIr, AcceptsWhatEveryPassLeavesOnExpandedAndSymbolicKernels) {
  for (const ir::Kernel& kernel : {test::fig3_kernel(), test::ring_pipeline(3, test::lit(8)),
                                   test::ring_pipeline(3, test::var("n"), "n")}) {
    const auto verdicts = verdicts_after_each_pass(kernel);
    EXPECT_EQ(verdicts.size(), passes::all_warp_split_passes().size() - 1) // verify-sync is off
        << kernel.name;
    for (const auto& [pass, problems] : verdicts)
      EXPECT_EQ(problems, std::vector<std::string>{}) << kernel.name << " after " << name_of(pass);
  }
}

class BrokenPlan : public ::testing::Test {
protected:
  void SetUp() override {
    ir::Diagnostics diags;
    plan = passes::run_warp_split(test::fig3_kernel(), {}, diags);
    ASSERT_FALSE(diags.has_errors());
    ASSERT_EQ(passes::verify_ir(plan, WarpSplitPass::VerifySync), std::vector<std::string>{});
  }
  ir::Graph& graph() { return plan.regions.front().graph; }
  // The first edge that needs a channel, of `kind`.
  ir::Edge& synchronized_edge(ir::EdgeKind kind) {
    auto& edges = graph().edges;
    const auto it = std::find_if(edges.begin(), edges.end(), [&](const ir::Edge& e) {
      return e.kind == kind && graph().needs_sync(e);
    });
    EXPECT_NE(it, edges.end());
    return *it;
  }
  // The verifier's problems after `pass`, as one string (empty: none).
  std::string problems_after(WarpSplitPass pass) const {
    std::string all;
    for (const std::string& problem : passes::verify_ir(plan, pass))
      all += problem + "\n";
    return all;
  }
  passes::WarpSplit plan;
};

TEST_F(BrokenPlan, AnEdgeRunningBackward) {
  std::swap(graph().edges.front().from, graph().edges.front().to);
  EXPECT_NE(problems_after(WarpSplitPass::BuildCdfg).find("does not run forward in program order"),
            std::string::npos);
}

TEST_F(BrokenPlan, ALabelOnASpaceTheGraphLacks) {
  synchronized_edge(ir::EdgeKind::Data).labels.push_back({99, {{0, 1}}});
  EXPECT_NE(problems_after(WarpSplitPass::BuildCdfg).find("labelled with space 99"),
            std::string::npos);
}

TEST_F(BrokenPlan, ARedundantEdgeWitnessedOnAnotherWarp) {
  ir::Edge& e = synchronized_edge(ir::EdgeKind::Data);
  e.redundant = true;
  e.witness = e.from; // the source's warp, not the destination's
  EXPECT_NE(problems_after(WarpSplitPass::RemoveRedundantEdges).find("has witness"),
            std::string::npos);
  EXPECT_NE(problems_after(WarpSplitPass::AddResourceEdges).find("before remove-redundant-edges"),
            std::string::npos);
}

TEST_F(BrokenPlan, ChannelsBeforeAllocationOrMissingAfterIt) {
  EXPECT_NE(problems_after(WarpSplitPass::RemoveRedundantEdges).find("before allocate-channels"),
            std::string::npos);
  synchronized_edge(ir::EdgeKind::Data).channel = 0;
  EXPECT_NE(problems_after(WarpSplitPass::AllocateChannels).find("needs synchronization, but has channel 0"),
            std::string::npos);
}

TEST_F(BrokenPlan, ADataEdgeOnAResourceChannel) {
  synchronized_edge(ir::EdgeKind::Data).channel = synchronized_edge(ir::EdgeKind::Resource).channel;
  const std::string problems = problems_after(WarpSplitPass::AllocateChannels);
  EXPECT_NE(problems.find("not one of the plan's data channels"), std::string::npos) << problems;
}

TEST_F(BrokenPlan, TwoWaitsForOneSignal) {
  ir::Edge& e = synchronized_edge(ir::EdgeKind::Data);
  const auto other = std::find_if(graph().edges.begin(), graph().edges.end(), [&](const ir::Edge& x) {
    return &x != &e && x.channel == e.channel;
  });
  ASSERT_NE(other, graph().edges.end()) << "Fig. 3 reuses its data channels";
  other->phase = e.phase;
  EXPECT_NE(problems_after(WarpSplitPass::AllocateChannels).find("do not expect its signals"),
            std::string::npos);
}

TEST_F(BrokenPlan, MoreChannelsThanKinds) {
  ++plan.channel_count;
  EXPECT_NE(problems_after(WarpSplitPass::AllocateChannels).find("channel kinds"), std::string::npos);
}

TEST_F(BrokenPlan, ACallDroppedFromItsWarp) {
  auto& ops = plan.regions.front().warps.front().ops;
  ops.erase(std::find_if(ops.begin(), ops.end(),
                         [](const ir::WarpOp& op) { return op.kind == ir::WarpOp::Kind::Call; }));
  EXPECT_NE(problems_after(WarpSplitPass::SplitWarps).find("is called 0 times"), std::string::npos);
}

TEST_F(BrokenPlan, CallsOutOfProgramOrder) {
  auto& ops = plan.regions.front().warps.front().ops;
  std::vector<ir::WarpOp*> calls;
  for (ir::WarpOp& op : ops)
    if (op.kind == ir::WarpOp::Kind::Call)
      calls.push_back(&op);
  ASSERT_GE(calls.size(), 2u);
  std::swap(calls[0]->node, calls[1]->node);
  EXPECT_NE(problems_after(WarpSplitPass::SplitWarps).find("not its next call in program order"),
            std::string::npos);
}

TEST_F(BrokenPlan, AWaitForTheWrongPhase) {
  for (auto& program : plan.regions.front().warps)
    for (ir::WarpOp& op : program.ops)
      if (op.kind == ir::WarpOp::Kind::Wait) {
        ++op.phase;
        const std::string problems = problems_after(WarpSplitPass::SplitWarps);
        EXPECT_NE(problems.find("which does not match the edge"), std::string::npos) << problems;
        EXPECT_NE(problems.find("1 signals and 0 waits"), std::string::npos) << problems;
        return;
      }
  FAIL() << "Fig. 3 has no wait";
}

TEST(VerifyIrSymbolicLoop, AFamilyOnAChannelThePlanLacks) {
  ir::Diagnostics diags;
  auto plan = passes::run_warp_split(test::ring_pipeline(3, test::var("n"), "n"), {}, diags);
  ASSERT_FALSE(diags.has_errors());
  ASSERT_EQ(plan.regions.front().kind, ir::Region::Kind::SymbolicLoop);
  auto& loop = plan.regions.front().loop;
  loop.families.front().channel = plan.channel_count + 1;
  loop.warps.front().residues.pop_back();
  const auto problems = passes::verify_ir(plan, WarpSplitPass::AllocateChannels);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("edge family 0 has channel"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("programs for a period of 3"), std::string::npos) << problems[1];
}

} // namespace
} // namespace s2p
