// Loops with constant trip counts kept as loops (CdfgOptions::keep_long_constant_loops, which
// the driver turns on when the expanded kernel does not fit a tile), on hand-built IR: which
// loops are kept, what they record, and that the kept plan is the run-time-count plan.
#include "ir_builder.h"
#include "passes/plan_symbolic_loop.h"
#include "passes/verify_sync.h"
#include "passes/warp_split.h"

#include <gtest/gtest.h>

namespace s2p {
namespace {

using ir::Expr;
using test::KernelBuilder;
using test::lit;
using test::var;

passes::WarpSplitOptions keeping_long_loops() {
  passes::WarpSplitOptions options;
  options.cdfg.keep_long_constant_loops = true;
  return options;
}

std::string messages(const ir::Diagnostics& diags) {
  std::string all;
  for (const auto& d : diags.items())
    all += d.message + "\n";
  return all;
}

TEST(KeptConstantLoops, ExpandedUnlessAsked) {
  const ir::Kernel kernel = test::ring_pipeline(3, lit(100));
  ir::Diagnostics diags;
  const auto plan = passes::run_warp_split(kernel, {}, diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  ASSERT_TRUE(plan.single_expanded_region());
  EXPECT_EQ(plan.regions[0].graph.nodes.size(), 300u);
  EXPECT_EQ(plan.constant_loops_kept(), 0);
}

TEST(KeptConstantLoops, ALongLoopIsPlannedAsTheRunTimeCountLoopIs) {
  const ir::Kernel constant = test::ring_pipeline(3, lit(100));
  const ir::Kernel run_time = test::ring_pipeline(3, var("n"), "n");
  ir::Diagnostics diags, run_time_diags;
  const auto plan = passes::run_warp_split(constant, keeping_long_loops(), diags);
  const auto reference = passes::run_warp_split(run_time, {}, run_time_diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  ASSERT_FALSE(run_time_diags.has_errors()) << messages(run_time_diags);
  EXPECT_EQ(plan.constant_loops_kept(), 1);
  EXPECT_TRUE(diags.items().empty()) << messages(diags);
  ASSERT_EQ(plan.regions.size(), 1u);
  const ir::Region& region = plan.regions[0];
  ASSERT_EQ(region.kind, ir::Region::Kind::SymbolicLoop);
  EXPECT_EQ(region.loop.constant_trips, std::optional<std::int64_t>{100});
  EXPECT_EQ(region.loop.bound.to_cpp(), "100");
  EXPECT_FALSE(reference.regions[0].loop.constant_trips);
  EXPECT_EQ(region.loop.period, reference.regions[0].loop.period);
  EXPECT_EQ(region.loop.families.size(), reference.regions[0].loop.families.size());
  EXPECT_EQ(plan.channel_count, reference.channel_count);
  // Sound for every count its window covers, as a run-time-count loop's plan is.
  for (std::int64_t trips = 0; trips <= region.loop.window; ++trips) {
    const auto instance = passes::instantiate_symbolic_loop(region, trips);
    ASSERT_EQ(passes::verify_sync(instance.graph, instance.warps), std::vector<std::string>{})
        << trips;
  }
}

// A loop no longer than its analysis window gains nothing from staying a loop.
TEST(KeptConstantLoops, ALoopNoLongerThanItsWindowIsExpanded) {
  for (const int trips : {40, 56, 57}) {
    const ir::Kernel kernel = test::ring_pipeline(3, lit(trips)); // period 3: window 56
    ir::Diagnostics diags;
    const auto plan = passes::run_warp_split(kernel, keeping_long_loops(), diags);
    ASSERT_FALSE(diags.has_errors()) << messages(diags);
    EXPECT_EQ(plan.constant_loops_kept(), trips > 56 ? 1 : 0) << trips;
    EXPECT_EQ(plan.single_expanded_region(), trips <= 56) << trips;
  }
}

// A pool coordinate that does not repeat with the loop: the loop is expanded, and a note says
// why it was not kept (the driver shows it if the expanded kernel is refused).
TEST(KeptConstantLoops, ALoopTheRulesDoNotAllowIsExpandedWithANote) {
  KernelBuilder b("aperiodic");
  const int pool = b.pool("smem", 1000);
  const int t = b.tensor("t", pool, 0, 100, 10);
  b.add(KernelBuilder::loop("i", lit(0), lit(100),
                            {b.call("fill", 0, {{t, var("i"), ir::AccessMode::Write}})}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  const auto plan = passes::run_warp_split(kernel, keeping_long_loops(), diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  EXPECT_TRUE(plan.single_expanded_region());
  EXPECT_EQ(plan.constant_loops_kept(), 0);
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].level, ir::Diagnostic::Level::Note);
  EXPECT_NE(diags.items()[0].message.find("loop 'i' (100 iterations) cannot be kept as a loop"),
            std::string::npos)
      << diags.items()[0].message;
}

// The same inner loop met in every iteration of an expanded outer loop: one note, not one per
// iteration.
TEST(KeptConstantLoops, ALoopTheRulesDoNotAllowIsNotedOnce) {
  KernelBuilder b("aperiodic_inner");
  const int pool = b.pool("smem", 1000);
  const int t = b.tensor("t", pool, 0, 100, 10);
  b.add(KernelBuilder::loop(
      "j", lit(0), lit(3),
      {KernelBuilder::loop("i", lit(0), lit(100),
                           {b.call("fill", 0, {{t, var("i"), ir::AccessMode::Write}})})}));
  ir::Diagnostics diags;
  const ir::Kernel kernel = b.kernel();
  const auto plan = passes::run_warp_split(kernel, keeping_long_loops(), diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  EXPECT_EQ(plan.constant_loops_kept(), 0);
  EXPECT_EQ(diags.items().size(), 1u) << messages(diags);
}

// Nested loops: a long outer loop is kept, the inner one expanded in each of its iterations
// (one of two nested loops can stay a loop); a short outer loop is expanded and its long inner
// loop kept once per outer iteration, its start moving with the outer variable.
ir::Kernel nest(int outer, Expr inner_start, int inner_bound) {
  KernelBuilder b("nest");
  const int pool = b.pool("smem", 30);
  const int t = b.tensor("t", pool, 0, 3, 10);
  const int out = b.ref("out");
  const auto slot = Expr::binary(Expr::Op::Rem, var("k"), lit(3));
  b.add(KernelBuilder::loop(
      "j", lit(0), lit(outer),
      {KernelBuilder::loop("k", std::move(inner_start), lit(inner_bound),
                           {b.call("fill", 0, {{t, slot, ir::AccessMode::Write}}),
                            b.call("drain", 1,
                                   {{t, slot, ir::AccessMode::Read},
                                    {out, var("k"), ir::AccessMode::Write}})})}));
  return b.kernel();
}

TEST(KeptConstantLoops, TheOutermostLongLoopIsKept) {
  ir::Diagnostics diags;
  const ir::Kernel long_outer = nest(60, lit(0), 6);
  const auto kept_outer = passes::run_warp_split(long_outer, keeping_long_loops(), diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  ASSERT_EQ(kept_outer.constant_loops_kept(), 1);
  ASSERT_EQ(kept_outer.regions.size(), 1u);
  EXPECT_EQ(kept_outer.regions[0].loop.var, "j");
  EXPECT_EQ(kept_outer.regions[0].loop.body_size, 12);

  const ir::Kernel short_outer = nest(3, var("j"), 200);
  const auto kept_inner = passes::run_warp_split(short_outer, keeping_long_loops(), diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  ASSERT_EQ(kept_inner.constant_loops_kept(), 3);
  ASSERT_EQ(kept_inner.regions.size(), 3u);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(kept_inner.regions[j].loop.var, "k");
    EXPECT_EQ(kept_inner.regions[j].loop.init, static_cast<std::int64_t>(j));
    EXPECT_EQ(kept_inner.regions[j].loop.constant_trips,
              std::optional<std::int64_t>{200 - static_cast<std::int64_t>(j)});
  }
}

// A long outer loop whose inner loop's start moves with it cannot be kept (the body differs
// between iterations): it is expanded with a note, and its long inner loops are kept instead.
TEST(KeptConstantLoops, AnOuterLoopTheRulesRefuseLeavesItsInnerLoopsToBeKept) {
  ir::Diagnostics diags;
  const ir::Kernel kernel = nest(50, var("j"), 120);
  const auto plan = passes::run_warp_split(kernel, keeping_long_loops(), diags);
  ASSERT_FALSE(diags.has_errors()) << messages(diags);
  ASSERT_EQ(diags.items().size(), 1u) << messages(diags);
  EXPECT_NE(diags.items()[0].message.find("loop 'j' (50 iterations) cannot be kept as a loop"),
            std::string::npos)
      << diags.items()[0].message;
  EXPECT_EQ(plan.constant_loops_kept(), 50); // 120 - j > 56 iterations for every j < 50
}

} // namespace
} // namespace s2p
