// Owner-copy plans against tests/golden/resource-maps.json (the golden 6144^2 example):
// planned without allocating the matrices.
#include <seq2par/owner_copy.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace {

using json = nlohmann::json;
using s2p::index_map;
using s2p::input_access;

json golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/resource-maps.json");
  return json::parse(in)["large_example"];
}

s2p::resource_map<2> large_map(std::int64_t scale = 1) {
  const json g = golden();
  const std::int64_t n = g["matrix"][0].get<std::int64_t>() / scale;
  auto block = [&](const char* key) {
    return s2p::extent<2>{g[key][0].get<std::int64_t>() / scale,
                          g[key][1].get<std::int64_t>() / scale};
  };
  return s2p::resource_map<2>::block_cyclic({n, n}, block("compute_node_block"),
                                            g["tiles"].get<int>())
      .memory_blocks(block("memory_block"))
      .algorithmic_blocks(block("algorithmic_block"));
}

TEST(OwnerCopy, AddingFieldsWithTheSameMapMovesNothing) {
  const auto map = large_map();
  const auto plan = s2p::plan_owner_copy<2>(
      map, {{"A", &map, index_map<2>::identity(), 8}, {"B", &map, index_map<2>::identity(), 8}});
  ASSERT_TRUE(plan.error.empty());
  EXPECT_EQ(static_cast<std::int64_t>(plan.moves.size()),
            golden()["C_equals_A_plus_B"]["blocks_moved"].get<std::int64_t>());
  EXPECT_EQ(plan.bytes, 0);
}

// A transposed read in both views: the full global view (Cd[i] = Ad[i] + Bd[{i[1], i[0]}]) and
// the local-global view (At(b), Bt({b[1], b[0]})) need the same blocks.
class Transpose : public ::testing::TestWithParam<s2p::access_view> {};

TEST_P(Transpose, MovesExactlyTheSeedsBlocks) {
  const json g = golden()["C_equals_A_plus_Bt"];
  const auto map = large_map();
  const auto plan = s2p::plan_owner_copy<2>(
      map, {{"A", &map, index_map<2>::identity(), 8, GetParam()},
            {"B", &map, index_map<2>::transpose(), 8, GetParam()}});
  ASSERT_TRUE(plan.error.empty());
  EXPECT_EQ(plan.algorithmic_moves, g["algorithmic_block_moves_total"].get<std::int64_t>());
  EXPECT_EQ(static_cast<std::int64_t>(plan.moves.size()),
            g["memory_block_moves_total"].get<std::int64_t>());
  EXPECT_EQ(plan.bytes, g["bytes_moved_total"].get<std::int64_t>());

  // No moves into the tiles of C segments 1, 3, 5, 7, 9.
  std::set<int> quiet_tiles;
  for (int segment : g["no_moves_for_C_segments"].get<std::vector<int>>())
    quiet_tiles.insert(map.segment_tile(segment - 1));
  for (const auto& move : plan.moves)
    EXPECT_FALSE(quiet_tiles.count(move.to_tile)) << move.to_tile;

  // Segment 4: B's algorithmic blocks 2, 8, 3, 9 (number 6 * row + col) from tile 2 to tile 4,
  // as two memory-block moves (2 + 8 and 3 + 9 share a 2048 x 1024 memory block).
  const auto alg = map.algorithmic_block();
  const auto mem = map.memory_block();
  std::set<std::vector<std::int64_t>> expected_memory_blocks;
  for (const auto& m : g["segment4_moves"]) {
    const std::int64_t number = m["B_block_number"].get<std::int64_t>();
    EXPECT_EQ(m["B_block"], json({number / 6, number % 6}));
    expected_memory_blocks.insert({number / 6 * alg[0] / mem[0], number % 6 * alg[1] / mem[1]});
    const int from = m["from_tile"].get<int>() - 1, to = m["to_tile"].get<int>() - 1;
    const auto found =
        std::find_if(plan.moves.begin(), plan.moves.end(), [&](const s2p::block_move& mv) {
          return mv.field == "B" &&
                 mv.block == std::vector<std::int64_t>{number / 6 * alg[0] / mem[0],
                                                       number % 6 * alg[1] / mem[1]} &&
                 mv.from_tile == from && mv.to_tile == to;
        });
    EXPECT_NE(found, plan.moves.end()) << "B block " << number;
  }
  EXPECT_EQ(expected_memory_blocks.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Views, Transpose,
                         ::testing::Values(s2p::access_view::global,
                                           s2p::access_view::local_global),
                         [](const auto& info) {
                           return info.param == s2p::access_view::global ? "GlobalView"
                                                                         : "LocalGlobalView";
                         });

TEST(OwnerCopy, WorkStealingQueuesHoldEachTilesOwnBlocks) {
  const json g = golden();
  const auto map = large_map();
  const auto plan = s2p::plan_owner_copy<2>(map, {});
  for (int tile = 0; tile < 4; ++tile)
    EXPECT_EQ(static_cast<int>(plan.queues[tile].size()),
              g["work_stealing_queue_sizes"]["tile" + std::to_string(tile + 1)].get<int>());
  json tile3 = json::array();
  for (const auto& task : plan.queues[2])
    tile3.push_back(task.block);
  EXPECT_EQ(tile3, g["tile3_queue"]);
}

TEST(OwnerCopy, PlanEqualsTheElementByElementMinimum) {
  // Same block structure, 1/64 of the size, so every element can be visited.
  const auto map = large_map(64);
  const std::vector<input_access<2>> inputs = {{"A", &map, index_map<2>::identity(), 8},
                                              {"B", &map, index_map<2>::transpose(), 8}};
  const auto plan = s2p::plan_owner_copy<2>(map, inputs);
  EXPECT_EQ(plan.bytes, s2p::minimum_block_bytes<2>(map, inputs));
  EXPECT_EQ(plan.bytes,
            golden()["C_equals_A_plus_Bt"]["bytes_moved_total"].get<std::int64_t>() / 64 / 64);
}

TEST(OwnerCopy, ReadingOutsideTheInputIsAnError) {
  const auto map = s2p::resource_map<1>::block({16}, 2);
  index_map<1> shifted = index_map<1>::identity();
  shifted.offset[0] = 1;
  const auto plan = s2p::plan_owner_copy<1>(map, {{"x", &map, shifted, 4}});
  EXPECT_EQ(plan.error, "forall reads 'x' outside its extent");
}

// A task body's loop as a coordinate (At({b[0], k}), Bt({k, b[1]}) for k in [0, 4)): each
// task of a 64 x 64 GEMM on 2 x 2 tiles reads its block row of A and block column of B, so
// every tile receives the half of each it does not own, once, whatever its tasks share.
TEST(OwnerCopy, LoopAxisReadsEveryBlockOfTheLoopsRange) {
  const auto map = s2p::resource_map<2>::block_block({64, 64}, {32, 32}, 4)
                       .memory_blocks({16, 16})
                       .algorithmic_blocks({16, 16});
  index_map<2> row, column;
  row.source_axis = {0, index_map<2>::loop_axis};
  row.span = {0, 4};
  column.source_axis = {index_map<2>::loop_axis, 1};
  column.span = {4, 0};
  const std::vector<input_access<2>> inputs = {
      {"A", &map, row, 4, s2p::access_view::local_global},
      {"B", &map, column, 4, s2p::access_view::local_global}};
  const auto plan = s2p::plan_owner_copy<2>(map, inputs);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  // Per tile: 2 block rows x 2 remote blocks of A, and as many of B.
  EXPECT_EQ(plan.moves.size(), 4u * 8u);
  EXPECT_EQ(plan.bytes, 4 * 8 * 16 * 16 * 4);
  EXPECT_EQ(plan.bytes, s2p::minimum_block_bytes<2>(map, inputs));
  for (const auto& move : plan.moves)
    EXPECT_NE(move.from_tile, move.to_tile);
}

TEST(OwnerCopy, LoopAxisLeavingTheFieldIsAnError) {
  const auto map = s2p::resource_map<2>::block_block({64, 64}, {32, 32}, 4)
                       .algorithmic_blocks({16, 16});
  index_map<2> row;
  row.source_axis = {0, index_map<2>::loop_axis};
  row.offset = {0, 1};
  row.span = {0, 4}; // k + 1 for k in [0, 4): block column 4 does not exist
  const auto plan = s2p::plan_owner_copy<2>(
      map, {{"A", &map, row, 4, s2p::access_view::local_global}});
  EXPECT_EQ(plan.error.rfind("forall reads a block of 'A' outside its algorithmic blocks", 0), 0u)
      << plan.error;
}

} // namespace
