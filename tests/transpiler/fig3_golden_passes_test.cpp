// The Fig. 3 worked example through every pass, compared field by field with
// tests/golden/fig3-pipeline.json (read from the file, never retyped here).
#include "dump/dumps.h"
#include "ir_builder.h"
#include "passes/warp_split.h"

#include <gtest/gtest.h>

#include <fstream>

namespace s2p {
namespace {

using json = nlohmann::json;

json load_golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/fig3-pipeline.json");
  EXPECT_TRUE(in.good()) << "golden file missing";
  return json::parse(in);
}

json dump(dump::DumpKind kind, const ir::Kernel& kernel, const passes::WarpSplit& plan) {
  return json::parse(dump::to_json(kind, kernel, plan).dump());
}

class Fig3Golden : public ::testing::Test {
protected:
  void SetUp() override {
    plan = passes::run_warp_split(kernel, {}, diags);
    ASSERT_FALSE(diags.has_errors());
  }
  const json golden = load_golden();
  const ir::Kernel kernel = test::fig3_kernel();
  ir::Diagnostics diags;
  passes::WarpSplit plan;
};

TEST_F(Fig3Golden, ScheduleTreeHasTheSeedsThreeBranches) {
  const json tree = dump(dump::DumpKind::ScheduleTree, kernel, plan);
  EXPECT_EQ(tree["branches"], golden["schedule_tree"]["branches"]);
  EXPECT_EQ(tree["branch_kinds"], golden["schedule_tree"]["branch_kinds"]);
}

TEST_F(Fig3Golden, NodesMatchIdWarpRoleRangeAndCall) {
  const json cdfg = dump(dump::DumpKind::Cdfg, kernel, plan);
  ASSERT_EQ(cdfg["nodes"].size(), golden["nodes"].size());
  // The golden lists producers first; match by id.
  for (const auto& expected : golden["nodes"]) {
    const auto it = std::find_if(cdfg["nodes"].begin(), cdfg["nodes"].end(),
                                 [&](const json& n) { return n["id"] == expected["id"]; });
    ASSERT_NE(it, cdfg["nodes"].end()) << expected["id"];
    for (const auto& field : {"warp", "role", "pool_range", "call"})
      EXPECT_EQ((*it)[field], expected[field]) << expected["id"] << " field " << field;
  }
}

TEST_F(Fig3Golden, ControlAndDataEdges) {
  const json cdfg = dump(dump::DumpKind::Cdfg, kernel, plan);
  EXPECT_EQ(cdfg["control_edges"], golden["control_edges"]);
  EXPECT_EQ(cdfg["data_edges"], golden["data_edges"]);
}

TEST_F(Fig3Golden, ResourceEdgesWithHalfOpenRanges) {
  const json cdrfg = dump(dump::DumpKind::Cdrfg, kernel, plan);
  ASSERT_EQ(cdrfg["resource_edges"].size(), golden["resource_edges"].size());
  for (std::size_t i = 0; i < golden["resource_edges"].size(); ++i) {
    const auto& got = cdrfg["resource_edges"][i];
    const auto& want = golden["resource_edges"][i];
    EXPECT_EQ(got["from"], want["from"]) << i;
    EXPECT_EQ(got["to"], want["to"]) << i;
    EXPECT_EQ(got["range"], want["range"]) << i;
  }
}

TEST_F(Fig3Golden, RemovesExactlyTheSeedsRedundantEdges) {
  const json cdrfg = dump(dump::DumpKind::Cdrfg, kernel, plan);
  EXPECT_EQ(cdrfg["removed_as_redundant"], golden["removed_as_redundant"]);
}

TEST_F(Fig3Golden, ChannelTableAndCount) {
  const json channels = dump(dump::DumpKind::Channels, kernel, plan);
  ASSERT_EQ(channels["channels"].size(), golden["channels"].size());
  for (std::size_t i = 0; i < golden["channels"].size(); ++i)
    for (const auto& field : {"from", "to", "kind", "channel"})
      EXPECT_EQ(channels["channels"][i][field], golden["channels"][i][field]) << i << " " << field;
  EXPECT_EQ(channels["channel_count"], golden["channel_count"]);
}

TEST_F(Fig3Golden, BothWarpSequences) {
  const json warps = dump(dump::DumpKind::Warps, kernel, plan);
  EXPECT_EQ(warps["warps"], golden["warps"]);
}

TEST_F(Fig3Golden, KeepRedundantKeepsEveryEdgeAndStillSynchronizesThem) {
  ir::Diagnostics d;
  const auto kept = passes::run_warp_split(kernel, {.keep_redundant = true, .cdfg = {}, .auto_warps = {}}, d);
  const json cdrfg = dump(dump::DumpKind::Cdrfg, kernel, kept);
  EXPECT_TRUE(cdrfg["removed_as_redundant"].empty());
  int synced = 0;
  const auto& graph = kept.regions.at(0).graph;
  for (const auto& e : graph.edges)
    synced += graph.needs_sync(e);
  EXPECT_EQ(synced, 14); // 7 data + 7 resource edges
}

} // namespace
} // namespace s2p
