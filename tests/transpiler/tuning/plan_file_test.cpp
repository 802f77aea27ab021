// seq2par.plan/1: a plan survives a round trip, and every malformed field is an error naming it.
#include "tuning/plan.h"
#include "tuning_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace s2p::tuning {
namespace {

KernelPlan full_plan() {
  KernelPlan plan = test::one_map_plan(4, {6, 1, 1, 1});
  plan.failed_tiles = {7};
  plan.maps[0].usable_tiles = {0, 1, 3, 5};
  plan.maps[0].at = "k.cpp:12";
  plan.maps.push_back({"rows", "", ir::MapProtocol::Block, true, {}, 2, {}, {}});
  plan.steps.push_back({ir::TileStep::Kind::AllReduce, ""});
  plan.steps.push_back({ir::TileStep::Kind::Forall, "map", 1, 4}); // writes several fields
  plan.pools.push_back({"buf", 3, ""});
  plan.warps.push_back({"k.cpp:20", 1});
  plan.fusions.push_back({0, 2});
  plan.splits.push_back({2, 4});
  plan.variants.push_back({"mma", "mma_f16"});
  plan.variant_groups = {{"mma", "mma_f16"}};
  plan.variables["rebalanced"] = 1;
  return plan;
}

std::string plan_error(const nlohmann::ordered_json& json) {
  ir::Diagnostics diagnostics;
  const auto plan = plan_from_json(json, "k.k.plan.json", diagnostics);
  EXPECT_FALSE(plan.has_value());
  return diagnostics.items().empty() ? "" : diagnostics.items()[0].message;
}

TEST(PlanFile, RoundTripsEveryField) {
  const KernelPlan plan = full_plan();
  const auto json = to_json(plan);
  ir::Diagnostics diagnostics;
  const auto back = plan_from_text(json.dump(2), "k.k.plan.json", diagnostics);
  ASSERT_TRUE(back.has_value()) << diagnostics.items()[0].message;
  EXPECT_EQ(*back, plan);
  EXPECT_EQ(to_json(*back).dump(2), json.dump(2));
  EXPECT_EQ(json["format"], "seq2par.plan/1");
  EXPECT_EQ(json["maps"][0]["protocol"], "block_cyclic");
  ASSERT_NE(find_map(plan, "rows"), nullptr);
  EXPECT_EQ(find_map(plan, "rows")->tiles, 2);
  EXPECT_EQ(find_map(plan, "cols"), nullptr);
  EXPECT_EQ(fabric_tile(plan.maps[0], 2), 3); // usable_tiles {0, 1, 3, 5}
  EXPECT_EQ(fabric_tile(plan.maps[1], 1), 1);
}

TEST(PlanFile, ErrorsNameTheField) {
  const auto good = to_json(full_plan());
  struct Case {
    const char* pointer;
    nlohmann::ordered_json value;
    const char* expected;
  };
  const Case cases[] = {
      {"/maps/0/weights/2", -1.0, "field 'maps[0].weights[2]': must be positive"},
      {"/maps/0/protocol", "diagonal", "field 'maps[0].protocol': unknown protocol \"diagonal\""},
      {"/maps/0/tiles", 0, "field 'maps[0].tiles': must be in [1, "},
      {"/maps/0/tiles", 3, "field 'maps[0].weights': 4 weights for 3 tiles"},
      {"/maps/1/block", "16", "field 'maps[1].block': expected an array"},
      {"/pools/0/ring_depth", 0, "field 'pools[0].ring_depth': must be in [1, "},
      {"/steps/1/kind", "scan", "field 'steps[1].kind': unknown step kind \"scan\""},
      {"/fusions/0/first", 2, "field 'fusions[0]': fuses steps past the last (3 steps)"},
      {"/splits/0/step", 3, "field 'splits[0].step': no such step"},
      {"/splits/0/parts", 5, "field 'splits[0].parts': 5 parts, step 2 splits into at most 4"},
      {"/steps/2/max_parts", 0, "field 'steps[2].max_parts': must be in [1, "},
      {"/variant_groups/0/1", 3, "field 'variant_groups[0][1]': expected a string"},
      {"/maps/1/name", "map", "field 'maps[1].name': map 'map' is listed twice"},
      {"/format", "seq2par.plan/2", "field 'format': expected \"seq2par.plan/1\""},
      {"/variables/rebalanced", "yes", "field 'variables.rebalanced': expected a finite number"},
      {"/tiles", 2.5, "field 'tiles': expected an integer"},
  };
  for (const Case& c : cases) {
    auto json = good;
    json[nlohmann::ordered_json::json_pointer(c.pointer)] = c.value;
    EXPECT_NE(plan_error(json).find(c.expected), std::string::npos)
        << c.pointer << ": " << plan_error(json);
  }
}

TEST(PlanFile, RefusesUnknownAndMissingFields) {
  auto json = to_json(full_plan());
  json["maps"][0]["wieghts"] = {1, 2};
  EXPECT_NE(plan_error(json).find("field 'maps[0].wieghts': unknown field"), std::string::npos);
  json = to_json(full_plan());
  json.erase("kernel");
  EXPECT_NE(plan_error(json).find("field 'kernel': missing"), std::string::npos);
  ir::Diagnostics diagnostics;
  EXPECT_FALSE(plan_from_text("{\"format\": ", "k.plan.json", diagnostics));
  ASSERT_EQ(diagnostics.items().size(), 1u);
  EXPECT_EQ(diagnostics.items()[0].loc.file, "k.plan.json");
  EXPECT_NE(diagnostics.items()[0].message.find("invalid JSON at 1:"), std::string::npos);
}

// A plan made before the kernel was edited: each difference named, none when it matches.
TEST(PlanFile, ChangesSinceThePlanWasMadeAreNamed) {
  const KernelPlan recorded = test::one_map_plan(4, {6, 1, 1, 1});
  EXPECT_TRUE(plan_changes(recorded, test::one_map_plan(4, {})).empty()) << "weights are the plan's";
  KernelPlan now = test::one_map_plan(3, {});
  now.maps[0].protocol = ir::MapProtocol::Cyclic;
  now.maps.push_back(now.maps[0]);
  now.maps[1].name = "other";
  now.steps.push_back({ir::TileStep::Kind::AllReduce, ""});
  KernelPlan old_plan = recorded;
  old_plan.maps.push_back(old_plan.maps[0]);
  old_plan.maps[1].name = "gone";
  old_plan.pools.push_back({"smem", 2, ""});
  EXPECT_EQ(plan_changes(old_plan, now),
            (std::vector<std::string>{"map 'map': protocol block_cyclic -> cyclic", "map 'map': 4 tiles -> 3",
                                      "map 'gone' is no longer built (with constant sizes)", "map 'other' is new",
                                      "steps [forall on 'map'] -> [forall on 'map', all_reduce]",
                                      "pool 'smem' is no longer declared"}));
  KernelPlan partial; // warp overrides only
  partial.warps.push_back({"78", 1});
  EXPECT_TRUE(plan_changes(partial, now).empty());
  EXPECT_TRUE(report_changes(recorded, 4).empty());
  EXPECT_EQ(report_changes(recorded, 2),
            (std::vector<std::string>{"map 'map' runs on tile 2, the report has 2 tiles"}));
}

TEST(PlanFile, PlanOfAKernelAsWritten) {
  ir::Kernel kernel;
  kernel.name = "scaled_sum";
  kernel.loc.file = "owner_copy.cpp";
  ir::MultiTile tile;
  tile.tiles = 3;
  ir::MapSpec spec;
  spec.protocol = ir::MapProtocol::BlockCyclic;
  spec.segment = {50};
  spec.tiles = 3;
  spec.refinements.push_back({ir::MapSpec::Refinement::Method::Weights, {2, 1, 1}, {}, {}});
  tile.maps["map"] = spec;
  tile.distributed["Zd"] = {"z", "map", sim::ElementType::kF32};
  ir::TileStep forall;
  forall.kind = ir::TileStep::Kind::Forall;
  forall.output = "Zd";
  tile.steps.push_back(forall);
  kernel.multi_tile = tile;
  const KernelPlan plan = plan_from_kernel(kernel);
  EXPECT_EQ(plan.kernel, "scaled_sum");
  EXPECT_EQ(plan.tiles, 3);
  ASSERT_EQ(plan.maps.size(), 1u);
  EXPECT_EQ(plan.maps[0].weights, (std::vector<double>{2, 1, 1}));
  EXPECT_EQ(plan.maps[0].block, (std::vector<std::int64_t>{50}));
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].map, "map");
}

} // namespace
} // namespace s2p::tuning
