// The passes on small hand-built kernels, including cases the seed does not show: more
// than two warps, several readers of one producer, nodes that both consume and produce,
// write-after-write, reads spanning several writers, tensor_refs, and channel reuse.
#include "ir_builder.h"
#include "passes/warp_split.h"
#include "passes/verify_sync.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace s2p {
namespace {

using ir::EdgeKind;
using test::KernelBuilder;
using test::lit;
using test::var;

struct Planned {
  ir::Kernel kernel;
  passes::WarpSplit plan;
  ir::Diagnostics diags;

  explicit Planned(ir::Kernel k, passes::WarpSplitOptions options = {}) : kernel(std::move(k)) {
    plan = passes::run_warp_split(kernel, options, diags);
  }
  // The single expanded region these kernels have (empty for a kernel without calls).
  ir::Graph& graph() { return plan.regions.empty() ? empty_graph : plan.regions[0].graph; }
  const ir::Graph& graph() const {
    return plan.regions.empty() ? empty_graph : plan.regions[0].graph;
  }
  std::vector<ir::WarpProgram>& warps() {
    return plan.regions.empty() ? empty_warps : plan.regions[0].warps;
  }
  const std::vector<ir::WarpProgram>& warps() const {
    return plan.regions.empty() ? empty_warps : plan.regions[0].warps;
  }
  ir::Graph empty_graph;
  std::vector<ir::WarpProgram> empty_warps;
  int node(const std::string& id) const {
    for (int i = 0; i < static_cast<int>(graph().nodes.size()); ++i)
      if (graph().nodes[i].id == id)
        return i;
    ADD_FAILURE() << "no node " << id;
    return -1;
  }
  const ir::Edge* edge(const std::string& from, const std::string& to, EdgeKind kind) const {
    const int f = node(from), t = node(to);
    for (const auto& e : graph().edges)
      if (e.from == f && e.to == t && e.kind == kind)
        return &e;
    return nullptr;
  }
  std::vector<std::string> problems() const { return passes::verify_sync(graph(), warps()); }
};

TEST(Passes, ProducerReadByTwoWarpsWaitsForBothBeforeReuse) {
  KernelBuilder b("two_readers");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(b.call("produce", 0, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("consume", 1, {{t, lit(0), ir::AccessMode::Read}}));
  b.add(b.call("consume", 2, {{t, lit(0), ir::AccessMode::Read}}));
  b.add(b.call("produce", 0, {{t, lit(0), ir::AccessMode::Write}}));
  Planned p(b.kernel());
  ASSERT_FALSE(p.diags.has_errors());
  EXPECT_NE(p.edge("p1", "c1", EdgeKind::Data), nullptr);
  EXPECT_NE(p.edge("p1", "c2", EdgeKind::Data), nullptr);
  ASSERT_NE(p.edge("c1", "p2", EdgeKind::Resource), nullptr);
  ASSERT_NE(p.edge("c2", "p2", EdgeKind::Resource), nullptr);
  EXPECT_FALSE(p.edge("c1", "p2", EdgeKind::Resource)->redundant);
  EXPECT_FALSE(p.edge("c2", "p2", EdgeKind::Resource)->redundant);
  EXPECT_EQ(p.warps().size(), 3u);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, NodeThatConsumesAndProducesGetsBothKindsOfEdge) {
  KernelBuilder b("middle");
  const int pool = b.pool("smem", 20);
  const int a = b.tensor("a", pool, 0, 1, 10);
  const int c = b.tensor("c", pool, 10, 1, 10);
  b.add(b.call("load", 0, {{a, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("compute", 1,
               {{a, lit(0), ir::AccessMode::Read}, {c, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("store", 2, {{c, lit(0), ir::AccessMode::Read}}));
  b.add(b.call("load", 0, {{a, lit(0), ir::AccessMode::Write}}));
  Planned p(b.kernel());
  EXPECT_EQ(p.graph().nodes[1].id, "x1");
  EXPECT_NE(p.edge("p1", "x1", EdgeKind::Data), nullptr);
  EXPECT_NE(p.edge("x1", "c1", EdgeKind::Data), nullptr);
  EXPECT_NE(p.edge("x1", "p2", EdgeKind::Resource), nullptr);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, InoutReadsThenWritesWithoutASelfEdge) {
  KernelBuilder b("inout");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(b.call("init", 0, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("update", 1, {{t, lit(0), ir::AccessMode::ReadWrite}}));
  b.add(b.call("read", 0, {{t, lit(0), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  for (const auto& e : p.graph().edges)
    EXPECT_NE(e.from, e.to);
  EXPECT_NE(p.edge("p1", "x1", EdgeKind::Data), nullptr);
  EXPECT_NE(p.edge("x1", "c1", EdgeKind::Data), nullptr);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, WriteAfterWriteWithoutReadersOrdersTheWriters) {
  KernelBuilder b("waw");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(b.call("fill", 0, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("fill", 1, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("read", 2, {{t, lit(0), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  ASSERT_NE(p.edge("p1", "p2", EdgeKind::Resource), nullptr);
  EXPECT_EQ(p.edge("p1", "c1", EdgeKind::Data), nullptr); // p2 overwrote everything
  EXPECT_NE(p.edge("p2", "c1", EdgeKind::Data), nullptr);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, ReadSpanningTwoWritersDependsOnBoth) {
  KernelBuilder b("span");
  const int pool = b.pool("smem", 20);
  const int halves = b.tensor("halves", pool, 0, 2, 10);
  const int whole = b.tensor("whole", pool, 0, 1, 20);
  b.add(KernelBuilder::loop("i", lit(0), lit(2),
                            {b.call("fill", 0, {{halves, var("i"), ir::AccessMode::Write}})}));
  b.add(b.call("sum", 1, {{whole, lit(0), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  const auto* first = p.edge("p1", "c1", EdgeKind::Data);
  const auto* second = p.edge("p2", "c1", EdgeKind::Data);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first->labels[0].ranges[0], (ir::Range{0, 10}));
  EXPECT_EQ(second->labels[0].ranges[0], (ir::Range{10, 20}));
  // p1 -> p2 (control) -> c1 also orders p1 before c1, but redundant-edge removal only drops
  // an edge when its source reaches an earlier node of the destination's warp (Fig. 3 keeps
  // c4 -> p7 for the same reason), so both edges stay.
  EXPECT_FALSE(first->redundant);
  EXPECT_FALSE(second->redundant);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, TensorRefDependenciesAreBySubTensorIndex) {
  KernelBuilder b("refs");
  const int pool = b.pool("smem", 10);
  const int buf = b.tensor("buf", pool, 0, 1, 10);
  const int in = b.ref("in");
  const int out = b.ref("out");
  b.add(KernelBuilder::loop(
      "i", lit(0), lit(2),
      {b.call("load", 0,
              {{in, var("i"), ir::AccessMode::Read}, {buf, lit(0), ir::AccessMode::Write}}),
       b.call("store", 1,
              {{buf, lit(0), ir::AccessMode::Read}, {out, var("i"), ir::AccessMode::Write}})}));
  b.add(b.call("check", 0, {{out, lit(1), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  EXPECT_EQ(p.graph().spaces.size(), 3u);
  // Loads and stores both read and write: x1 load, x2 store, x3 load, x4 store.
  // check reads out[1], written by the second store (x4), not by the first.
  EXPECT_NE(p.edge("x4", "c1", EdgeKind::Data), nullptr);
  EXPECT_EQ(p.edge("x2", "c1", EdgeKind::Data), nullptr);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, WriteAfterReadOnTensorRefsIsOrdered) {
  KernelBuilder b("ref_war");
  const int x = b.ref("x");
  b.add(b.call("read", 1, {{x, lit(0), ir::AccessMode::Read}}));
  b.add(b.call("write", 0, {{x, lit(0), ir::AccessMode::Write}}));
  Planned p(b.kernel());
  ASSERT_NE(p.edge("c1", "p1", EdgeKind::Resource), nullptr);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, SameWarpEdgesNeedNoChannel) {
  KernelBuilder b("one_warp");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(b.call("produce", 0, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("consume", 0, {{t, lit(0), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  EXPECT_EQ(p.plan.channel_count, 0);
  ASSERT_EQ(p.warps().size(), 1u);
  EXPECT_EQ(p.warps()[0].ops.size(), 2u);
}

TEST(Passes, EmptyKernelHasNoWarps) {
  KernelBuilder b("empty");
  Planned p(b.kernel());
  EXPECT_FALSE(p.diags.has_errors());
  EXPECT_TRUE(p.warps().empty());
  EXPECT_EQ(p.plan.channel_count, 0);
}

TEST(Passes, ChannelIsReusedOnlyWhenThePreviousWaitPrecedesTheSignal) {
  // Two independent producer/consumer pairs on four warps: nothing orders the first
  // pair's wait before the second pair's signal, so they need two channels.
  KernelBuilder b("independent");
  const int pool = b.pool("smem", 20);
  const int t = b.tensor("t", pool, 0, 2, 10);
  b.add(b.call("produce", 0, {{t, lit(0), ir::AccessMode::Write}}));
  b.add(b.call("consume", 1, {{t, lit(0), ir::AccessMode::Read}}));
  b.add(b.call("produce", 2, {{t, lit(1), ir::AccessMode::Write}}));
  b.add(b.call("consume", 3, {{t, lit(1), ir::AccessMode::Read}}));
  Planned p(b.kernel());
  EXPECT_EQ(p.plan.channel_count, 2);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, ThreeWarpRingPipelineIsRaceFreeAndDeadlockFree) {
  // load (warp 0) -> compute (warp 1) -> store (warp 2) over a ring of 3 slots, 12 steps.
  Planned p(test::ring_pipeline(3, lit(12)));
  ASSERT_FALSE(p.diags.has_errors());
  EXPECT_EQ(p.graph().nodes.size(), 36u);
  EXPECT_EQ(p.warps().size(), 3u);
  EXPECT_EQ(p.problems(), std::vector<std::string>{});
  // Channels are reused across iterations rather than growing with the trip count.
  EXPECT_LT(p.plan.channel_count, 16);
}

TEST(Passes, KeepRedundantStillVerifies) {
  Planned p(test::fig3_kernel(), {.keep_redundant = true, .cdfg = {}, .auto_warps = {}});
  EXPECT_EQ(p.plan.redundant_edges, 0);
  EXPECT_TRUE(p.problems().empty());
}

TEST(Passes, VerifierCatchesAMissingSynchronization) {
  Planned p(test::fig3_kernel());
  // Break the plan: forget both resource edges into p4 (c2 -> p4 alone would still be
  // implied by c2 -> c3 -> p4).
  for (auto& e : p.graph().edges)
    if (p.graph().nodes[e.to].id == "p4" && e.kind == EdgeKind::Resource)
      e.redundant = true;
  const auto problems = p.problems();
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("race: c2"), std::string::npos) << problems[0];
}

TEST(Passes, VerifierCatchesADeadlock) {
  Planned p(test::fig3_kernel());
  // Make p1 wait for a signal nobody sends.
  p.warps()[0].ops.insert(p.warps()[0].ops.begin(), ir::WarpOp{ir::WarpOp::Kind::Wait, 0, 0, 6, 5});
  const auto problems = p.problems();
  const std::string expected =
      "deadlock: warp 0 waits on channel 6 for signal #5 before p1 (channel has 0)";
  EXPECT_NE(std::find(problems.begin(), problems.end(), expected), problems.end())
      << ::testing::PrintToString(problems);
}

TEST(Passes, OutOfRangeCoordinateIsADiagnosticAtTheAccess) {
  KernelBuilder b("oob");
  const int pool = b.pool("smem", 30);
  const int t = b.tensor("t", pool, 0, 3, 10);
  auto call = b.call("f", 0, {{t, var("i"), ir::AccessMode::Write}}, 7);
  call.call.accesses[0].loc = {"k.cpp", 7, 5};
  b.add(KernelBuilder::loop("i", lit(0), lit(4), {call}));
  Planned p(b.kernel());
  ASSERT_TRUE(p.diags.has_errors());
  EXPECT_EQ(p.diags.items()[0].loc.line, 7u);
  EXPECT_EQ(p.diags.items()[0].message,
            "coordinate 3 is out of range [0,3) for tensor 't' in f(t[3])");
}

TEST(Passes, DecreasingAndSteppedLoopsExpandInOrder) {
  KernelBuilder b("steps");
  const int pool = b.pool("smem", 60);
  const int t = b.tensor("t", pool, 0, 6, 10);
  b.add(KernelBuilder::loop("i", lit(5), lit(-1),
                            {b.call("f", 0, {{t, var("i"), ir::AccessMode::Write}})}, -2));
  Planned p(b.kernel());
  ASSERT_EQ(p.graph().nodes.size(), 3u);
  EXPECT_EQ(p.graph().nodes[0].text, "f(t[5])");
  EXPECT_EQ(p.graph().nodes[2].text, "f(t[1])");
}

TEST(Passes, ExpansionLimitIsADiagnosticNotAnOutOfMemory) {
  KernelBuilder b("huge");
  const int pool = b.pool("smem", 10);
  const int t = b.tensor("t", pool, 0, 1, 10);
  b.add(KernelBuilder::loop("i", lit(0), lit(1000),
                            {b.call("f", 0, {{t, lit(0), ir::AccessMode::Write}})}));
  passes::WarpSplitOptions options;
  options.cdfg.max_nodes = 100;
  Planned p(b.kernel(), options);
  ASSERT_TRUE(p.diags.has_errors());
  EXPECT_NE(p.diags.items()[0].message.find("more than 100 intrinsic calls"), std::string::npos);
}

} // namespace
} // namespace s2p
