// Resource maps against tests/golden/resource-maps.json: the 6x6 assignment
// tables, the split-point case and the 6144^2 segment assignment, read from the file.
#include <seq2par/distribution.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <map>

namespace {

using json = nlohmann::json;

json golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/resource-maps.json");
  return json::parse(in);
}

// node<k> (1-based) -> elements e = 6 * row + col, from an element-granularity map.
json element_table(const s2p::resource_map<2>& map) {
  std::map<int, std::vector<int>> nodes;
  for (int e = 0; e < 36; ++e)
    nodes[map.tile_of({e / 6, e % 6}) + 1].push_back(e);
  json out = json::object();
  for (const auto& [node, elements] : nodes)
    out["node" + std::to_string(node)] = elements;
  return out;
}

// node<k> -> the distribution example's segment numbers (2x2 segments numbered row by row from 1).
json segment_table(const s2p::resource_map<2>& map) {
  std::map<int, std::vector<int>> nodes;
  for (const auto& segment : map.segments()) {
    const int number =
        static_cast<int>(segment.child.offset[0] / 2 * 3 + segment.child.offset[1] / 2 + 1);
    nodes[segment.tile + 1].push_back(number);
  }
  json out = json::object();
  for (auto& [node, numbers] : nodes) {
    std::sort(numbers.begin(), numbers.end());
    out["node" + std::to_string(node)] = numbers;
  }
  return out;
}

TEST(ResourceMap, SixBySixSegmentsAreTheSeedsFig3B) {
  const json g = golden()["small_matrix"]["segments_2x2"];
  const auto map = s2p::resource_map<2>::block_block({6, 6}, {2, 2}, 3);
  for (const auto& segment : map.segments()) {
    std::vector<int> elements;
    for (std::int64_t r = 0; r < segment.child.size[0]; ++r)
      for (std::int64_t c = 0; c < segment.child.size[1]; ++c)
        elements.push_back(
            static_cast<int>((segment.child.offset[0] + r) * 6 + segment.child.offset[1] + c));
    EXPECT_EQ(json(elements), g["segment" + std::to_string(segment.id)]) << segment.id;
  }
}

TEST(ResourceMap, SixBySixAssignmentTables) {
  const json tables = golden()["small_matrix"]["tables"];
  using map = s2p::resource_map<2>;
  EXPECT_EQ(element_table(map::block({6, 6}, 3)), tables["row_block_Q3_elements"]);
  EXPECT_EQ(element_table(map::block({6, 6}, 4)), tables["row_block_Q4_elements"]);
  EXPECT_EQ(element_table(map::cyclic({6, 6}, 3)), tables["row_cyclic_Q3_elements"]);
  EXPECT_EQ(element_table(map::cyclic({6, 6}, 4)), tables["row_cyclic_Q4_elements"]);
  EXPECT_EQ(segment_table(map::block_block({6, 6}, {2, 2}, 3, s2p::axis::columns)),
            tables["column_block_Q3_segments"]);
  EXPECT_EQ(segment_table(map::block_cyclic({6, 6}, {2, 2}, 3)),
            tables["row_block_cyclic_Q3_segments"]);
  EXPECT_EQ(segment_table(map::block_cyclic({6, 6}, {2, 2}, 4)),
            tables["row_block_cyclic_Q4_segments"]);
  EXPECT_EQ(segment_table(map::block_block({6, 6}, {2, 2}, 3)),
            tables["row_block_block_Q3_segments"]);
}

TEST(ResourceMap, SplitPointsGiveUnequalSegmentsFoundByBinarySearch) {
  const json g = golden()["split_points"];
  std::array<std::vector<std::int64_t>, 2> splits;
  for (int d = 0; d < 2; ++d)
    splits[d] = g["split"][d].get<std::vector<std::int64_t>>();
  const auto map =
      s2p::resource_map<2>::split_points({g["parent_extent"][0], g["parent_extent"][1]}, splits, 4);
  EXPECT_FALSE(map.equal_segments());
  ASSERT_EQ(map.segment_count(), g["segments"].get<std::int64_t>());
  json extents = json::array();
  for (const auto& s : map.segments())
    extents.push_back({s.child.size[0], s.child.size[1]});
  EXPECT_EQ(extents, g["extents"]);
  EXPECT_EQ(map.segment_number({15, 15}), 0);
  EXPECT_EQ(map.segment_number({16, 15}), 2);
  EXPECT_EQ(map.segment_number({35, 35}), 3);
}

TEST(ResourceMap, LargeExampleSegmentsGoToTilesBlockCyclically) {
  const json g = golden()["large_example"];
  const auto map =
      s2p::resource_map<2>::block_cyclic({6144, 6144}, {2048, 2048}, g["tiles"].get<int>())
          .memory_blocks({2048, 1024})
          .algorithmic_blocks({1024, 1024});
  for (const auto& segment : map.segments())
    EXPECT_EQ(segment.tile + 1,
              g["segment_to_tile"]["segment" + std::to_string(segment.id)].get<int>())
        << segment.id;
  EXPECT_TRUE(map.equal_segments());
  EXPECT_EQ(map.tile_of({2048 + 5, 10}), 3); // segment 4 -> tile 4 (1-based)
}

TEST(ResourceMap, NestingThatDoesNotDivideIsRefused) {
  auto map = s2p::resource_map<2>::block_cyclic({6144, 6144}, {2048, 2048}, 4);
  EXPECT_THROW(map.memory_blocks({2048, 1000}), std::invalid_argument);
  EXPECT_THROW(map.memory_blocks({1024, 1024}).algorithmic_blocks({1024, 300}),
               std::invalid_argument);
}

// The map throws exactly what its rule says (seq2par reports the same words at transpile
// time), and a rule that holds says nothing.
std::string refusal(const std::function<void()>& build) {
  try {
    build();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ResourceMapRules, TheMapThrowsWhatEachRuleSays) {
  using map2 = s2p::resource_map<2>;
  const s2p::extent<2> parent{8, 8};
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 4}, 3).weights({1, 2}); }),
            "s2p::resource_map: " + s2p::map_rules::weight_count(2, 3));
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 4}, 2).weights({1, -1}); }),
            "s2p::resource_map: " + s2p::map_rules::weight(-1));
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 4}, 2).memory_blocks({3, 4}); }),
            "s2p::resource_map: " +
                s2p::map_rules::nesting(0, false, "memory block 3", "segment [0, 4)"));
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 0}, 2); }),
            "s2p::resource_map: " + s2p::map_rules::block_extent(0));
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 4}, 0); }),
            "s2p::resource_map: " + s2p::map_rules::tile_count(0));
  EXPECT_EQ(refusal([&] { (void)map2::split_points(parent, {{{4, 2}, {4}}}, 2); }),
            "s2p::resource_map: " + s2p::map_rules::split_point(0, 2, 4, 8));
  EXPECT_EQ(refusal([&] { (void)map2::split_points(parent, {{{4}, {8}}}, 2); }),
            "s2p::resource_map: axis 1: split point 8 is not inside the extent 8");
  EXPECT_EQ(refusal([&] { (void)map2::block_block(parent, {4, 4}, 2).weights({1, 3}); }),
            "(accepted)");
}

// A failed tile left out: the segments go to the other tiles by the same protocol and weights,
// and the map keeps its tile count.
TEST(ResourceMap, ExcludedTilesGetNoSegment) {
  using map1 = s2p::resource_map<1>;
  const auto owners = [](const map1& m) {
    std::vector<int> out;
    for (std::int64_t s = 0; s < m.segment_count(); ++s)
      out.push_back(m.segment_tile(s));
    return out;
  };
  EXPECT_EQ(owners(map1::block_cyclic({8}, {1}, 4).exclude_tiles({2})),
            (std::vector<int>{0, 1, 3, 0, 1, 3, 0, 1}));
  EXPECT_EQ(owners(map1::block_block({6}, {1}, 4).exclude_tiles({1, 3})),
            (std::vector<int>{0, 0, 0, 2, 2, 2}));
  EXPECT_EQ(owners(map1::block_block({6}, {1}, 3).exclude_tiles({2})), // the last tile left out
            (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(owners(map1::block_cyclic({6}, {1}, 3).weights({1, 5, 2}).exclude_tiles({1})),
            (std::vector<int>{2, 0, 2, 2, 0, 2}));
  EXPECT_EQ(map1::block_cyclic({8}, {1}, 4).exclude_tiles({2}).tiles(), 4);
  EXPECT_EQ(refusal([] { (void)map1::block({8}, 2).exclude_tiles({2}); }),
            "s2p::resource_map: " + s2p::map_rules::excluded_tile(2, 2));
  EXPECT_EQ(refusal([] { (void)map1::block({8}, 2).exclude_tiles({0, 1}); }),
            "s2p::resource_map: " + s2p::map_rules::tiles_left(2, 2));
}

TEST(ResourceMapRules, RulesThatHoldSayNothing) {
  EXPECT_EQ(s2p::map_rules::tile_count(1), "");
  EXPECT_EQ(s2p::map_rules::weight_count(4, 4), "");
  EXPECT_EQ(s2p::map_rules::weight(0.5), "");
  EXPECT_NE(s2p::map_rules::weight(std::nan("")), ""); // NaN is not a positive weight
  EXPECT_EQ(s2p::map_rules::split_point(0, 3, 2, 0), ""); // extent not known
  EXPECT_EQ(s2p::map_rules::nesting(1, true, "a", "b"), "");
}

TEST(ResourceMap, WeightedTilesGetMoreSegments) {
  auto map = s2p::resource_map<1>::block_block({12}, {1}, 3).weights({2.0, 1.0, 1.0});
  int counts[3] = {};
  for (std::int64_t i = 0; i < 12; ++i)
    ++counts[map.tile_of({i})];
  EXPECT_EQ(counts[0], 6);
  EXPECT_EQ(counts[1], 3);
  EXPECT_EQ(counts[2], 3);
  EXPECT_THROW(map.weights({1.0, 1.0}), std::invalid_argument);
}

TEST(ResourceMap, WeightedCyclicDealsInProportion) {
  const auto map = s2p::resource_map<1>::block_cyclic({8}, {1}, 3).weights({2.0, 1.0, 1.0});
  std::vector<int> owners;
  for (std::int64_t i = 0; i < 8; ++i)
    owners.push_back(map.tile_of({i}));
  EXPECT_EQ(owners, (std::vector<int>{0, 1, 2, 0, 0, 1, 2, 0}));
}

TEST(Field, TransposeIsAViewNotACopy) {
  std::vector<int> data(6);
  s2p::field<2, int> f(data.data(), {2, 3});
  f(1, 2) = 7;
  const auto t = f.transpose();
  EXPECT_EQ(t.extent()[0], 3);
  EXPECT_EQ(t(2, 1), 7);
  t(0, 1) = 5;
  EXPECT_EQ(f(1, 0), 5);
  EXPECT_EQ(t.data(), f.data());
}

// A section is a view of part of the field; one that leaves the field is an error, not a
// view of whatever memory follows (a task's section would write another block).
TEST(Field, SectionIsAViewInsideTheField) {
  std::vector<int> data(12);
  s2p::field<2, int> f(data.data(), {3, 4});
  const auto s = f.section({{2, 2}, {1, 1}});
  s(1, 1) = 9;
  EXPECT_EQ(f(2, 2), 9);
  EXPECT_NO_THROW((void)f.section({{3, 4}, {0, 0}}));
  EXPECT_THROW((void)f.section({{2, 2}, {2, 0}}), std::out_of_range);
  EXPECT_THROW((void)f.section({{1, 5}, {0, 0}}), std::out_of_range);
  EXPECT_THROW((void)f.section({{1, 1}, {-1, 0}}), std::out_of_range);
}

} // namespace
