// Each warp-split pass called alone, on the graph the pass before it leaves (the Fig. 3 kernel
// built by hand, counts from tests/golden/fig3-pipeline.json): what each pass adds, and that it
// leaves alone what it does not own. run_warp_split chains them (fig3_golden_passes_test.cpp).
#include "ir_builder.h"
#include "passes/allocate_channels.h"
#include "passes/build_cdfg.h"
#include "passes/build_cdrfg.h"
#include "passes/check_tile_memory.h"
#include "passes/remove_redundant_edges.h"
#include "passes/split_warps.h"
#include "passes/verify_sync.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace s2p {
namespace {

using ir::EdgeKind;
using json = nlohmann::json;

json load_golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/fig3-pipeline.json");
  EXPECT_TRUE(in.good()) << "golden file missing";
  return json::parse(in);
}

std::size_t edges_of(const ir::Graph& graph, EdgeKind kind) {
  return static_cast<std::size_t>(std::count_if(graph.edges.begin(), graph.edges.end(),
                                                [&](const ir::Edge& e) { return e.kind == kind; }));
}

std::size_t redundant_edges(const ir::Graph& graph) {
  return static_cast<std::size_t>(std::count_if(graph.edges.begin(), graph.edges.end(),
                                                [](const ir::Edge& e) { return e.redundant; }));
}

bool no_channels(const ir::Graph& graph) {
  return std::all_of(graph.edges.begin(), graph.edges.end(),
                     [](const ir::Edge& e) { return e.channel == 0; });
}

class WarpSplitPasses : public ::testing::Test {
protected:
  void SetUp() override {
    graph = passes::build_cdfg(kernel, diags);
    ASSERT_FALSE(diags.has_errors());
  }
  void through_redundant_edges() {
    passes::add_resource_edges(graph);
    passes::remove_redundant_edges(graph);
  }
  const ir::Kernel kernel = test::fig3_kernel();
  const json golden = load_golden();
  ir::Diagnostics diags;
  ir::Graph graph;
};

TEST_F(WarpSplitPasses, BuildCdfgMakesEveryCallANodeWithControlAndDataEdgesOnly) {
  EXPECT_EQ(graph.nodes.size(), golden["nodes"].size());
  EXPECT_EQ(edges_of(graph, EdgeKind::Control), golden["control_edges"].size());
  EXPECT_EQ(edges_of(graph, EdgeKind::Data), golden["data_edges"].size());
  EXPECT_EQ(edges_of(graph, EdgeKind::Resource), 0u);
  EXPECT_TRUE(no_channels(graph));
}

TEST_F(WarpSplitPasses, AddResourceEdgesAddsBufferReuseAndKeepsTheOtherEdges) {
  const std::size_t control = edges_of(graph, EdgeKind::Control);
  const std::size_t data = edges_of(graph, EdgeKind::Data);
  passes::add_resource_edges(graph);
  EXPECT_EQ(edges_of(graph, EdgeKind::Resource), golden["resource_edges"].size());
  EXPECT_EQ(edges_of(graph, EdgeKind::Control), control);
  EXPECT_EQ(edges_of(graph, EdgeKind::Data), data);
  EXPECT_EQ(redundant_edges(graph), 0u);
  EXPECT_TRUE(no_channels(graph));
}

TEST_F(WarpSplitPasses, RemoveRedundantEdgesMarksWhatOtherPathsImplyAndErasesNothing) {
  passes::add_resource_edges(graph);
  const std::size_t edges = graph.edges.size();
  const int removed = passes::remove_redundant_edges(graph);
  EXPECT_EQ(static_cast<std::size_t>(removed), golden["removed_as_redundant"].size());
  EXPECT_EQ(redundant_edges(graph), static_cast<std::size_t>(removed));
  EXPECT_EQ(graph.edges.size(), edges);
  for (const ir::Edge& e : graph.edges)
    if (e.redundant) // implied by a node of the waiter's warp, or by a data edge
      EXPECT_TRUE(e.witness < 0 || graph.nodes[e.witness].warp == graph.nodes[e.to].warp);
  EXPECT_TRUE(no_channels(graph));
}

TEST_F(WarpSplitPasses, AllocateChannelsNumbersEachEdgeLeftToSynchronizeDataFirst) {
  through_redundant_edges();
  passes::allocate_channels(graph);
  EXPECT_EQ(graph.channel_count, golden["channel_count"].get<int>());
  ASSERT_GT(graph.data_channel_count, 0);
  for (const ir::Edge& e : graph.edges) {
    if (!graph.needs_sync(e)) {
      EXPECT_EQ(e.channel, 0);
      continue;
    }
    EXPECT_GE(e.channel, 1);
    EXPECT_LE(e.channel, graph.channel_count);
    EXPECT_GE(e.phase, 1);
    if (e.kind == EdgeKind::Data)
      EXPECT_LE(e.channel, graph.data_channel_count);
    else
      EXPECT_GT(e.channel, graph.data_channel_count);
  }
}

TEST_F(WarpSplitPasses, SplitWarpsGivesEachWarpItsCallsInProgramOrderAndASoundSchedule) {
  through_redundant_edges();
  passes::allocate_channels(graph);
  const std::vector<ir::WarpProgram> programs = passes::split_warps(graph);
  ASSERT_EQ(programs.size(), golden["warps"].size());
  for (const ir::WarpProgram& program : programs) {
    std::vector<int> calls;
    for (const ir::WarpOp& op : program.ops)
      if (op.kind == ir::WarpOp::Kind::Call)
        calls.push_back(op.node);
    std::vector<int> expected;
    for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v)
      if (graph.nodes[static_cast<std::size_t>(v)].warp == program.warp)
        expected.push_back(v);
    EXPECT_EQ(calls, expected) << "warp " << program.warp;
    EXPECT_EQ(program.ops.size(), golden["warps"][std::to_string(program.warp)].size());
  }
  EXPECT_TRUE(passes::verify_sync(graph, programs).empty());
}

TEST_F(WarpSplitPasses, CheckTileMemoryRefusesPoolsOneByteLargerThanTheTile) {
  ir::Kernel sized = kernel; // the front end fills in element sizes; the builder does not
  std::int64_t need = 0;
  for (auto& pool : sized.pools) {
    pool.element_bytes = 4; // float
    need += pool.bytes();
  }
  ASSERT_GT(need, 0);
  EXPECT_TRUE(passes::check_tile_memory(sized, need, diags));
  EXPECT_FALSE(diags.has_errors());
  ir::Diagnostics small;
  EXPECT_FALSE(passes::check_tile_memory(sized, need - 1, small));
  EXPECT_TRUE(small.has_errors());
}

} // namespace
} // namespace s2p
