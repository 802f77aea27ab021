// --plan's resource-map weights applied to a kernel's IR: the map's spec (what schedule
// templates are planned from) and a re-weighting call right after its declaration (what the
// emitted program runs).
#include "pass_manager/plan_overrides.h"

#include <gtest/gtest.h>

namespace {

using namespace s2p;

ir::Kernel weighted_kernel(const std::string& declaration) {
  ir::Kernel kernel;
  kernel.name = "scaled_sum";
  ir::MultiTile tile;
  tile.tiles = 3;
  ir::MapSpec spec;
  spec.protocol = ir::MapProtocol::BlockCyclic;
  spec.segment = {50};
  spec.tiles = 3;
  spec.refinements.push_back({ir::MapSpec::Refinement::Method::Weights, {2, 1, 1}, {}, {}});
  spec.refinements.push_back({ir::MapSpec::Refinement::Method::MemoryBlocks, {}, {25}, {}});
  tile.maps["map"] = spec;
  kernel.multi_tile = tile;
  kernel.preamble = {declaration, "auto shifted_map = s2p::resource_map<1>::block(y.extent(), 3);",
                     "auto Zd = s2p::agile(z, map);"};
  return kernel;
}

const char* kDeclaration = "auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {50}, 3).weights({2.0, 1.0, 1.0});";

TEST(PlanOverrides, WeightsReplaceTheKernelsInSpecAndCode) {
  ir::Diagnostics diags;
  const auto tuned = pass_manager::apply_plan_overrides(weighted_kernel(kDeclaration), {{"map", {1, 1, 1.5}, "plans/k.plan.json", {}}}, {}, diags);
  ASSERT_TRUE(tuned.has_value()) << diags.items()[0].message;
  ASSERT_EQ(tuned->preamble.size(), 5u);
  EXPECT_EQ(tuned->preamble[0], kDeclaration);
  EXPECT_EQ(tuned->preamble[1], "// re-weighted by --plan k.plan.json"); // the file's name, not its path
  EXPECT_EQ(tuned->preamble[2], "map.weights({1, 1, 1.5});");
  EXPECT_EQ(tuned->preamble[4], "auto Zd = s2p::agile(z, map);"); // after the re-weighting
  const auto& refinements = tuned->multi_tile->maps.at("map").refinements;
  ASSERT_EQ(refinements.size(), 2u);
  EXPECT_EQ(refinements[0].method, ir::MapSpec::Refinement::Method::MemoryBlocks);
  EXPECT_EQ(refinements[1].weights, (std::vector<double>{1, 1, 1.5}));
}

// A plan that leaves a failed tile out: the map keeps its tiles, deals nothing to tile 1 (its
// exclude_tiles), and the plan's weights (one per usable tile) are spread over the map's tiles.
TEST(PlanOverrides, UsableTilesExcludeTheOthersInSpecAndCode) {
  ir::Diagnostics diags;
  const auto tuned = pass_manager::apply_plan_overrides(weighted_kernel(kDeclaration),
                                                    {{"map", {3, 2}, "k.plan.json", {0, 2}}}, {}, diags);
  ASSERT_TRUE(tuned.has_value()) << diags.items()[0].message;
  ASSERT_EQ(tuned->preamble.size(), 6u);
  EXPECT_EQ(tuned->preamble[2], "map.weights({3, 1, 2});");
  EXPECT_EQ(tuned->preamble[3], "map.exclude_tiles({1});");
  const auto& refinements = tuned->multi_tile->maps.at("map").refinements;
  ASSERT_EQ(refinements.size(), 3u);
  EXPECT_EQ(refinements[2].method, ir::MapSpec::Refinement::Method::ExcludeTiles);
  EXPECT_EQ(refinements[2].tiles, (std::vector<int>{1}));
  const auto refused = [&](std::vector<int> usable, std::vector<double> weights) {
    ir::Diagnostics d;
    EXPECT_FALSE(pass_manager::apply_plan_overrides(weighted_kernel(kDeclaration),
                                                {{"map", weights, "p.json", usable}}, {}, d));
    return d.items().empty() ? std::string() : d.items()[0].message;
  };
  EXPECT_EQ(refused({0, 3}, {}), "p.json: kernel 'scaled_sum', map 'map': usable tile 3 is not one of "
                                 "the map's tiles 0..2 (--plan deals a map to a subset of its own tiles)");
  EXPECT_EQ(refused({2, 0}, {}), "p.json: kernel 'scaled_sum', map 'map': usable tiles must be ascending "
                                 "and listed once");
  EXPECT_EQ(refused({0, 2}, {1, 1, 1}), "p.json: kernel 'scaled_sum', map 'map': 3 weights for a map of 2 "
                                        "usable tiles");
}

TEST(PlanOverrides, RefusesWhatItCannotApply) {
  struct Case {
    std::string declaration;
    pass_manager::MapWeights weights;
    const char* expected;
  };
  const Case cases[] = {
      {kDeclaration, {"other", {1, 1, 1}, "p.json", {}},
       "p.json: kernel 'scaled_sum', map 'other': the kernel builds no resource map of that name with constant sizes"},
      {kDeclaration, {"map", {1, 1}, "p.json", {}}, "p.json: kernel 'scaled_sum', map 'map': 2 weights for a map of 3 tiles"},
      {std::string("const ") + kDeclaration, {"map", {1, 1, 1}, "p.json", {}},
       "p.json: kernel 'scaled_sum', map 'map': the map is const, so it cannot be re-weighted"},
  };
  for (const Case& c : cases) {
    ir::Diagnostics diags;
    EXPECT_FALSE(pass_manager::apply_plan_overrides(weighted_kernel(c.declaration), {c.weights}, {}, diags));
    ASSERT_EQ(diags.items().size(), 1u);
    EXPECT_EQ(diags.items()[0].message, c.expected);
  }
}

} // namespace
