// The forall schedule template seq2par writes at transpile time (schedules/schedule_templates.h),
// from hand-built IR: the golden 6144^2 C = A + B^T against tests/golden/resource-maps.json,
// and the reasons it writes none.
#include "schedules/schedule_templates.h"
#include "schedules/tile_schedules.h"
#include "emit/multi_tile_code.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

namespace {

using s2p::ir::Kernel;
using s2p::ir::TileStep;

nlohmann::json golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/resource-maps.json");
  return nlohmann::json::parse(in).at("large_example");
}

std::vector<std::int64_t> ints(const nlohmann::json& j) {
  return j.get<std::vector<std::int64_t>>();
}

// add_transpose as the front end records it: the example's map over C.extent(), three agile
// fields, and calls passing `extent` for every field. `transposed`: B read as B[{i1, i0}].
Kernel seed_kernel(const std::vector<std::int64_t>& extent, bool transposed) {
  const nlohmann::json g = golden();
  Kernel kernel;
  kernel.name = "add_transpose";
  kernel.loc.file = "seed.cpp";
  auto& multi = kernel.multi_tile.emplace();
  multi.tiles = g.at("tiles").get<int>();
  s2p::ir::MapSpec map;
  map.protocol = s2p::ir::MapProtocol::BlockCyclic;
  map.parent_parameter = "C";
  map.segment = ints(g.at("compute_node_block"));
  map.tiles = multi.tiles;
  using Method = s2p::ir::MapSpec::Refinement::Method;
  map.refinements.push_back({Method::MemoryBlocks, {}, ints(g.at("memory_block")), {}});
  map.refinements.push_back({Method::AlgorithmicBlocks, {}, ints(g.at("algorithmic_block")), {}});
  multi.maps["map"] = map;
  for (const char* name : {"C", "A", "B"}) {
    multi.distributed[std::string(name) + "d"] = {name, "map", s2p::sim::ElementType::kF64};
    multi.parameter_extents[name] = extent;
  }
  multi.extents_from = "the call at seed.cpp:1";
  TileStep step;
  step.kind = TileStep::Kind::Forall;
  step.rank = 2;
  step.output = "Cd";
  step.add_read("Ad", {{0, 1}, {0, 0}});
  step.add_read("Bd", transposed ? TileStep::IndexMap{{1, 0}, {0, 0}}
                                 : TileStep::IndexMap{{0, 1}, {0, 0}});
  multi.steps.push_back(step);
  return kernel;
}

// The 6144^2 owner-copy example holds a quarter of three 288 MiB fields on each of its 4 tiles:
// tile memory is a fabric parameter, so it is planned on tiles that large (1 GiB), not on the
// built-in chip's 624 KiB ones.
constexpr std::uint64_t kSeedTileSram = std::uint64_t{1} << 30;

std::vector<nlohmann::ordered_json> sends(const nlohmann::ordered_json& schedule) {
  std::vector<nlohmann::ordered_json> out;
  for (const auto& superstep : schedule.at("supersteps"))
    if (superstep.contains("exchange"))
      for (const auto& entry : superstep.at("exchange"))
        if (entry.at("kind") == "send")
          out.push_back(entry);
  return out;
}

TEST(ForallScheduleTemplate, SeedAddTransposeMovesTheGoldenBlocks) {
  const nlohmann::json g = golden();
  const Kernel kernel = seed_kernel(ints(g.at("matrix")), true);
  const auto planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "",
                                                                 kSeedTileSram);
  ASSERT_TRUE(planned.schedule) << planned.reason;
  const auto& schedule = *planned.schedule;
  EXPECT_EQ(schedule.at("format"), "seq2par.schedule/1");
  EXPECT_EQ(schedule.at("tiles"), 4);
  EXPECT_EQ(schedule.at("generator"),
            "seq2par: owner-copy forall over Cd 6144x6144 f64, Ad 6144x6144 f64, Bd 6144x6144 f64");
  const auto& expected = g.at("C_equals_A_plus_Bt");
  const auto moves = sends(schedule);
  ASSERT_EQ(moves.size(), expected.at("memory_block_moves_total").get<std::size_t>());
  std::int64_t bytes = 0;
  std::map<std::pair<int, int>, int> between; // (from, to) -> memory blocks
  for (const auto& m : moves) {
    EXPECT_EQ(m.at("buffer"), "Bd"); // A is read where it lives
    bytes += m.at("bytes").get<std::int64_t>();
    ++between[{m.at("tiles")[0].get<int>(), m.at("to").get<int>()}];
  }
  EXPECT_EQ(bytes, expected.at("bytes_moved_total").get<std::int64_t>());
  // C segment s (3x3 grid, row-major) reads B's transposed segment: the moves run from that
  // segment's tile to s's, two 2048x1024 memory blocks per moving segment (segment 4's four
  // algorithmic blocks of B are two memory blocks, tile 2 -> 4 in the example's numbering).
  const auto& owner = g.at("segment_to_tile");
  auto tile_of = [&](int r, int c) {
    return owner.at("segment" + std::to_string(3 * r + c + 1)).get<int>() - 1;
  };
  const auto still = expected.at("no_moves_for_C_segments").get<std::set<int>>();
  std::map<std::pair<int, int>, int> expected_between;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!still.count(3 * r + c + 1))
        expected_between[{tile_of(c, r), tile_of(r, c)}] +=
            expected.at("memory_block_moves_total").get<int>() /
            (9 - static_cast<int>(still.size()));
  EXPECT_EQ(between, expected_between);
  const auto& segment4 = expected.at("segment4_moves")[0];
  EXPECT_EQ(between.count(
                {segment4.at("from_tile").get<int>() - 1, segment4.at("to_tile").get<int>() - 1}),
            1u);
  // The send cycles keep each port to one stream: no two sends of a tile overlap.
  std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> busy;
  for (const auto& m : moves) {
    const std::int64_t start = m.at("cycle"), length = (m.at("bytes").get<std::int64_t>() + 7) / 8;
    busy[m.at("tiles")[0].get<int>()].push_back({start, start + length});
  }
  for (auto& [tile, spans] : busy) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k)
      EXPECT_LE(spans[k - 1].second, spans[k].first) << "tile " << tile;
  }
}

// The compute superstep says what the compute model charges before any owner lookup: a
// cycle per element per field, over each tile's queue (12/8/8/8 algorithmic blocks).
TEST(ForallScheduleTemplate, ComputeEstimateFollowsTheGoldenQueues) {
  const nlohmann::json g = golden();
  const Kernel kernel = seed_kernel(ints(g.at("matrix")), true);
  const auto planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "",
                                                                 kSeedTileSram);
  ASSERT_TRUE(planned.schedule) << planned.reason;
  const auto block = ints(g.at("algorithmic_block"));
  const std::int64_t per_task = block[0] * block[1] * 3; // C, A and B
  std::map<std::int64_t, std::vector<int>> expected;
  const auto& sizes = g.at("work_stealing_queue_sizes");
  for (int t = 0; t < 4; ++t)
    expected[sizes.at("tile" + std::to_string(t + 1)).get<std::int64_t>() * per_task].push_back(t);
  std::map<std::int64_t, std::vector<int>> actual;
  for (const auto& superstep : planned.schedule->at("supersteps"))
    if (superstep.at("name") == "forall")
      for (const auto& entry : superstep.at("compute"))
        actual[entry.at("cycles").get<std::int64_t>()] = entry.at("tiles").get<std::vector<int>>();
  EXPECT_EQ(actual, expected);
}

TEST(ForallScheduleTemplate, SeedAddMovesNothing) {
  const nlohmann::json g = golden();
  ASSERT_EQ(g.at("C_equals_A_plus_B").at("blocks_moved"), 0);
  const Kernel kernel = seed_kernel(ints(g.at("matrix")), false);
  const auto planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "",
                                                                 kSeedTileSram);
  ASSERT_TRUE(planned.schedule) << planned.reason;
  EXPECT_TRUE(sends(*planned.schedule).empty());
  ASSERT_EQ(planned.schedule->at("supersteps").size(), 1u); // only the forall's compute
  EXPECT_EQ(planned.schedule->at("supersteps")[0].at("name"), "forall");
}

TEST(ForallScheduleTemplate, WithoutKnownExtentsTheReasonReachesTheGeneratedCode) {
  Kernel kernel = seed_kernel({96, 96}, true);
  kernel.multi_tile->parameter_extents.clear();
  kernel.multi_tile->no_extents_reason =
      "the extent of 'C' in the call at line 7 is not a constant";
  const auto schedules = s2p::schedules::plan_tile_schedules(kernel);
  EXPECT_TRUE(schedules.files.empty());
  ASSERT_EQ(schedules.notes.size(), 1u);
  EXPECT_EQ(schedules.notes[0],
            "no schedule template: the extent of 'C' in the call at line 7 is not a constant; the "
            "owner-copy moves are planned when the kernel runs");
  const std::string body = s2p::emit::emit_multi_tile_body(kernel, {"seed.cpp"}, schedules);
  EXPECT_NE(body.find("// no schedule template: the extent of 'C'"), std::string::npos) << body;
}

TEST(ForallScheduleTemplate, ExtentsTheMapRefusesGiveNoTemplate) {
  Kernel kernel = seed_kernel({96, 96}, true);
  kernel.multi_tile->parameter_extents["B"] = {96, 97}; // s2p::agile(B, map) would throw
  auto planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  EXPECT_FALSE(planned.schedule);
  EXPECT_EQ(planned.reason, "'B' is 96x97 but resource map 'map' covers 96x96");

  kernel = seed_kernel({96, 96}, true);
  kernel.multi_tile->maps.clear(); // a map with a size only known when the kernel runs
  planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  EXPECT_FALSE(planned.schedule);
  EXPECT_EQ(planned.reason, "resource map 'map' is not one protocol call (block, cyclic, "
                            "block_block, block_cyclic, split_points) with constant sizes");

  kernel = seed_kernel({96, 90}, true); // C 96x90 reads B[{i1, i0}] outside a 96x90 B
  planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  EXPECT_FALSE(planned.schedule);
  EXPECT_NE(planned.reason.find("seq2par: "), std::string::npos) << planned.reason;
}

TEST(ForallScheduleTemplate, EachStepOfAKernelWithSeveralNamesItsOwnFile) {
  Kernel kernel = seed_kernel({96, 96}, true);
  kernel.multi_tile->steps.push_back(kernel.multi_tile->steps[0]);
  const auto schedules = s2p::schedules::plan_tile_schedules(kernel);
  ASSERT_EQ(schedules.files.size(), 2u);
  EXPECT_EQ(schedules.files[0].first, "add_transpose.1.schedule.json");
  EXPECT_EQ(schedules.files[1].first, "add_transpose.2.schedule.json");
  const std::string body = s2p::emit::emit_multi_tile_body(kernel, {"seed.cpp"}, schedules);
  // Each step's launch description names its schedule, then its code images (no pools).
  EXPECT_NE(body.find("s2p_step_2 = {\"add_transpose\", \"seed.cpp\", 4, \"add_transpose.2\", "
                      "nullptr, 0, s2p_code_images_2, 1}"),
            std::string::npos)
      << body;
}

} // namespace

// `i[0] != 95` around a read of A(i0 + 1, i1) in a 96-row forall: the value is the last
// index, so the template (and the launch, whose code says the same) bounds the read's indices
// below it, and nothing is read outside A. A `!=` the launch skips (a loop variable's) leaves
// the read at row 96; a value only the running kernel knows gives no template.
TEST(ForallScheduleTemplate, ANotEqualGuardAtTheLastIndexBoundsTheReads) {
  const auto kernel_with = [](std::optional<std::int64_t> constant, bool at_edge) {
    Kernel kernel = seed_kernel({96, 96}, false);
    TileStep& step = kernel.multi_tile->steps[0];
    TileStep::IndexMap below{{0, 1}, {1, 0}};
    TileStep::IndexBound bound;
    bound.axis = 0;
    bound.value = constant ? std::to_string(*constant) : "(last)";
    bound.constant = constant;
    bound.excluded = true;
    bound.bounds_at_edge = at_edge;
    below.guard = {bound};
    step.reads[0].maps = {below};
    return kernel;
  };
  Kernel kernel = kernel_with(95, true);
  auto planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  ASSERT_TRUE(planned.schedule) << planned.reason;
  const auto schedules = s2p::schedules::plan_tile_schedules(kernel);
  const std::string body = s2p::emit::emit_multi_tile_body(kernel, {"seed.cpp"}, schedules);
  EXPECT_NE(body.find("(static_cast<std::int64_t>(95) >= Cd.extent()[0] - 1 ? "
                      "static_cast<std::int64_t>(95) : s2p::index_map<2>::unbounded)"),
            std::string::npos)
      << body;

  kernel = kernel_with(95, false);
  planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  EXPECT_FALSE(planned.schedule);
  EXPECT_NE(planned.reason.find("outside"), std::string::npos) << planned.reason;

  kernel = kernel_with(std::nullopt, true);
  planned = s2p::schedules::forall_schedule_template(kernel, kernel.multi_tile->steps[0], "");
  EXPECT_FALSE(planned.schedule);
  EXPECT_NE(planned.reason.find("'(last)', which only the running kernel knows"), std::string::npos)
      << planned.reason;
}
