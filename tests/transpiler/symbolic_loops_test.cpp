// Loops with a run-time trip count (symbolic loops) on hand-built IR: periodicity, the
// analysis window, edge families, prologue/epilogue by phase, and the self-check.
#include "ir_builder.h"
#include "passes/loop_period.h"
#include "passes/warp_split.h"
#include "passes/plan_symbolic_loop.h"
#include "passes/verify_sync.h"

#include <gtest/gtest.h>

namespace s2p {
namespace {

using ir::Expr;
using passes::Periodicity;
using test::KernelBuilder;
using test::lit;
using test::var;

Expr bin(Expr::Op op, Expr a, Expr b) {
  return Expr::binary(op, std::move(a), std::move(b));
}

TEST(LoopPeriod, ModuloOfAffineIsPeriodic) {
  const auto p = passes::periodicity(bin(Expr::Op::Rem, var("i"), lit(3)), "i");
  EXPECT_EQ(p.kind, Periodicity::Kind::Periodic);
  EXPECT_EQ(p.period, 3);
  const auto q =
      passes::periodicity(bin(Expr::Op::Rem, bin(Expr::Op::Mul, lit(2), var("i")), lit(4)), "i");
  EXPECT_EQ(q.period, 2);
  const auto sum = passes::periodicity(bin(Expr::Op::Add, bin(Expr::Op::Rem, var("i"), lit(3)),
                                           bin(Expr::Op::Rem, var("i"), lit(2))),
                                       "i");
  EXPECT_EQ(sum.period, 6);
}

TEST(LoopPeriod, AffineIndicesAndIndependentTermsAreRecognized) {
  const auto p =
      passes::periodicity(bin(Expr::Op::Add, bin(Expr::Op::Mul, lit(2), var("i")), var("j")), "i");
  EXPECT_EQ(p.kind, Periodicity::Kind::Affine);
  EXPECT_EQ(p.coefficient, 2);
  EXPECT_EQ(passes::periodicity(var("j"), "i").kind, Periodicity::Kind::Periodic);
}

TEST(LoopPeriod, NonPeriodicNonAffineIsOther) {
  EXPECT_EQ(passes::periodicity(bin(Expr::Op::Mul, var("i"), var("i")), "i").kind,
            Periodicity::Kind::Other);
  EXPECT_EQ(
      passes::periodicity(bin(Expr::Op::Rem, bin(Expr::Op::Div, var("i"), lit(2)), lit(3)), "i")
          .kind,
      Periodicity::Kind::Other);
  EXPECT_EQ(
      passes::periodicity(bin(Expr::Op::Rem, bin(Expr::Op::Sub, lit(0), var("i")), lit(3)), "i")
          .kind,
      Periodicity::Kind::Other);
}

TEST(LoopPeriod, FoldResiduesOnlyWhereTheResidueFixesTheValue) {
  const Expr slot = bin(Expr::Op::Rem, bin(Expr::Op::Add, var("i"), lit(1)), lit(3));
  EXPECT_EQ(passes::fold_residues(slot, "i", 4, 3).to_cpp(), "2");
  EXPECT_EQ(passes::fold_residues(slot, "i", 4, 2).to_cpp(),
            "(i + 1) % 3"); // stride 2 changes the residue
  EXPECT_EQ(passes::fold_residues(bin(Expr::Op::Add, var("i"), lit(1)), "i", 4, 3).to_cpp(),
            "i + 1");
}

// The ring pipeline over n (a kernel parameter) steps.
ir::Kernel ring_kernel(int depth) {
  return test::ring_pipeline(depth, var("n"), "n");
}

TEST(SymbolicLoop, RingPipelineBecomesTwoQueuesOfDepthEqualToTheRing) {
  for (int depth : {1, 2, 3, 4}) {
    ir::Diagnostics diags;
    const ir::Kernel kernel = ring_kernel(depth);
    const auto plan = passes::run_warp_split(kernel, {}, diags);
    ASSERT_FALSE(diags.has_errors()) << depth;
    ASSERT_EQ(plan.regions.size(), 1u);
    const auto& loop = plan.regions[0].loop;
    EXPECT_EQ(plan.regions[0].kind, ir::Region::Kind::SymbolicLoop);
    EXPECT_EQ(loop.period, depth);
    EXPECT_EQ(loop.body_size, 3);
    // Per stage pair: data at distance 0, buffer reuse at distance `depth`, every iteration.
    ASSERT_EQ(loop.families.size(), 4u) << depth;
    for (const auto& f : loop.families) {
      EXPECT_EQ(f.residue, -1);
      EXPECT_EQ(f.distance, f.kind == ir::EdgeKind::Data ? 0 : depth);
    }
    EXPECT_EQ(plan.channel_count, 4);
  }
}

TEST(SymbolicLoop, InstancesAreRaceAndDeadlockFreeForEveryTripCount) {
  ir::Diagnostics diags;
  const ir::Kernel kernel = ring_kernel(3);
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  ASSERT_FALSE(diags.has_errors());
  for (std::int64_t trips = 0; trips <= plan.regions[0].loop.window; ++trips) {
    const auto instance = passes::instantiate_symbolic_loop(plan.regions[0], trips);
    ASSERT_EQ(passes::verify_sync(instance.graph, instance.warps), std::vector<std::string>{})
        << trips;
  }
}

TEST(SymbolicLoop, PrologueWaitsHaveNonPositivePhases) {
  ir::Diagnostics diags;
  const ir::Kernel kernel = ring_kernel(3);
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  const auto instance = passes::instantiate_symbolic_loop(plan.regions[0], 3);
  // The loads of iterations 0..2 wait for the release of a slot used three iterations earlier.
  int skipped = 0;
  for (const auto& op : instance.warps[0].ops)
    skipped += op.kind == ir::WarpOp::Kind::Wait && op.phase <= 0;
  EXPECT_EQ(skipped, 3);
}

TEST(SymbolicLoop, MixedKernelHasFencedRegions) {
  KernelBuilder b("mixed");
  b.symbol("n");
  const int pool = b.pool("smem", 20);
  const int slots = b.tensor("slots", pool, 0, 2, 10);
  const auto slot = bin(Expr::Op::Rem, var("i"), lit(2));
  b.add(b.call("init", 0, {{slots, lit(0), ir::AccessMode::Write}}));
  b.add(KernelBuilder::loop("i", lit(0), var("n"),
                            {b.call("fill", 0, {{slots, slot, ir::AccessMode::Write}}),
                             b.call("use", 1, {{slots, slot, ir::AccessMode::Read}})}));
  b.add(b.call("final", 1, {{slots, lit(1), ir::AccessMode::Read}}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  ASSERT_FALSE(diags.has_errors());
  ASSERT_EQ(plan.regions.size(), 3u);
  EXPECT_EQ(plan.regions[1].kind, ir::Region::Kind::SymbolicLoop);
  EXPECT_EQ(plan.fence_channel, plan.channel_count);
  EXPECT_EQ(plan.channel_kinds.back(), s2p::ir::ChannelKind::Fence);
}

TEST(SymbolicLoop, ConstantIndexAccumulationIsADistanceOneDependency) {
  // Every iteration adds into acc[0] on warp 1 after warp 0 produced a value.
  KernelBuilder b("accumulate");
  b.symbol("n");
  const int pool = b.pool("smem", 10);
  const int tmp = b.tensor("tmp", pool, 0, 1, 10);
  const int acc = b.ref("acc");
  b.add(KernelBuilder::loop(
      "i", lit(0), var("n"),
      {b.call("make", 0, {{tmp, lit(0), ir::AccessMode::Write}}),
       b.call("add", 1,
              {{tmp, lit(0), ir::AccessMode::Read}, {acc, lit(0), ir::AccessMode::ReadWrite}})}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  ASSERT_FALSE(diags.has_errors());
  const auto& loop = plan.regions[0].loop;
  EXPECT_EQ(loop.period, 1);
  bool reuse = false;
  for (const auto& f : loop.families)
    reuse |= f.kind == ir::EdgeKind::Resource && f.distance == 1;
  EXPECT_TRUE(reuse); // make[i] must wait until add[i - 1] has read tmp
}

// `if (i + 2 < n) fill(t[(i + 2) % 3])` in a loop over n: the call is predicated. Its
// guard keeps `i` a variable, and the loop is planned exactly as if the call always ran
// (the skipped call still waits and signals), so every instance stays race-free.
ir::Kernel prefetch_kernel(bool guarded) {
  KernelBuilder b("prefetch");
  b.symbol("n");
  const int pool = b.pool("smem", 30);
  const int t = b.tensor("t", pool, 0, 3, 10);
  const auto ahead = bin(Expr::Op::Rem, bin(Expr::Op::Add, var("i"), lit(2)), lit(3));
  ir::ScheduleNode fill = b.call("fill", 0, {{t, ahead, ir::AccessMode::Write}});
  ir::ScheduleNode body = fill;
  if (guarded) {
    ir::Condition c;
    c.op = ir::Condition::Op::Less;
    c.lhs = bin(Expr::Op::Add, var("i"), lit(2));
    c.rhs = var("n");
    c.text = "i + 2 < n";
    body = ir::ScheduleNode{};
    body.kind = ir::ScheduleNode::Kind::If;
    body.condition = c;
    ir::ScheduleNode then;
    then.kind = ir::ScheduleNode::Kind::Block;
    then.children.push_back(fill);
    body.children.push_back(then);
  }
  b.add(KernelBuilder::loop(
      "i", lit(0), var("n"),
      {b.call("use", 1, {{t, bin(Expr::Op::Rem, var("i"), lit(3)), ir::AccessMode::Read}}),
       body}));
  return b.kernel();
}

TEST(SymbolicLoop, PredicatedCallIsPlannedAsIfItAlwaysRan) {
  ir::Diagnostics plain_diags, guarded_diags;
  const ir::Kernel plain_kernel = prefetch_kernel(false);
  const ir::Kernel guarded_kernel = prefetch_kernel(true);
  const auto plain = passes::run_warp_split(plain_kernel, {}, plain_diags);
  const auto guarded = passes::run_warp_split(guarded_kernel, {}, guarded_diags);
  ASSERT_FALSE(guarded_diags.has_errors())
      << (guarded_diags.items().empty() ? "" : guarded_diags.items()[0].message);
  ASSERT_FALSE(plain_diags.has_errors());
  ASSERT_EQ(guarded.regions.size(), 1u);
  const auto& region = guarded.regions[0];
  ASSERT_EQ(region.kind, ir::Region::Kind::SymbolicLoop);
  EXPECT_EQ(region.loop.body_size, 2);
  EXPECT_EQ(region.loop.families.size(), plain.regions[0].loop.families.size());
  EXPECT_EQ(guarded.channel_count, plain.channel_count);
  // Every iteration of the window has the guarded call, with `i` left a variable.
  for (int t = 0; t < region.loop.window; ++t) {
    const auto& fill = region.graph.nodes[static_cast<std::size_t>(region.loop.node_of(1, t))];
    ASSERT_TRUE(fill.guard.has_value()) << t;
    EXPECT_EQ(fill.guard->to_cpp(), "(i + 2 < n)");
    EXPECT_FALSE(region.graph.nodes[static_cast<std::size_t>(region.loop.node_of(0, t))].guard);
  }
  for (std::int64_t trips = 0; trips <= region.loop.window; ++trips) {
    const auto instance = passes::instantiate_symbolic_loop(region, trips);
    ASSERT_EQ(passes::verify_sync(instance.graph, instance.warps), std::vector<std::string>{})
        << trips;
  }
}

TEST(SymbolicLoop, NonPeriodicPoolCoordinateIsADiagnostic) {
  KernelBuilder b("aperiodic");
  b.symbol("n");
  const int pool = b.pool("smem", 100);
  const int t = b.tensor("t", pool, 0, 10, 10);
  auto call = b.call("fill", 0, {{t, var("i"), ir::AccessMode::Write}});
  b.add(KernelBuilder::loop("i", lit(0), var("n"), {call}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  passes::run_warp_split(kernel, {}, diags);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_NE(diags.items()[0].message.find("pool coordinate 'i' of 't' must repeat with 'i'"),
            std::string::npos)
      << diags.items()[0].message;
}

TEST(SymbolicLoop, NestedRunTimeTripCountsAreADiagnostic) {
  KernelBuilder b("nested");
  b.symbol("n").symbol("m");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(KernelBuilder::loop(
      "i", lit(0), var("n"),
      {KernelBuilder::loop("j", lit(0), var("m"),
                           {b.call("fill", 0, {{t, lit(0), ir::AccessMode::Write}})})}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  passes::run_warp_split(kernel, {}, diags);
  ASSERT_TRUE(diags.has_errors());
  EXPECT_NE(diags.items()[0].message.find("only the outer of two nested loops"), std::string::npos)
      << diags.items()[0].message;
}

} // namespace
} // namespace s2p
