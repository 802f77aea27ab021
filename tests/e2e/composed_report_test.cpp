// Multi-tile kernels whose tasks are warp pipelines, on the simulator: the report places each
// task's pipeline inside the compute phase of the fabric launch that ran it (the tiles run
// their tasks at the same time, each tile its own one after the other), sums them per tile
// into the launch's "task_warps", and the trace draws them as one process per tile.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

namespace {

using json = nlohmann::json;

struct SimRun {
  json report;
  json trace;
};

SimRun run_on_sim(const std::string& program) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("composed_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string command = "S2P_BACKEND=sim S2P_REPORT='" + (dir / "r.json").string() +
                              "' S2P_TRACE='" + (dir / "t.json").string() + "' '" + program +
                              "' > /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  SimRun run{json::parse(std::ifstream(dir / "r.json")), json::parse(std::ifstream(dir / "t.json"))};
  std::filesystem::remove_all(dir);
  return run;
}

// The fabric launch whose compute ran tasks split into warps.
const json& launch_with_tasks(const json& report) {
  for (const auto& launch : report["launches"])
    if (launch.contains("task_warps"))
      return launch;
  ADD_FAILURE() << "no fabric launch with task_warps";
  static const json none = json::object();
  return none;
}

void expect_tasks_inside_their_launch(const std::string& program, int tiles, int tasks_per_tile) {
  const SimRun run = run_on_sim(program);
  const json& fabric = launch_with_tasks(run.report);
  ASSERT_TRUE(fabric.contains("supersteps"));
  const auto begin = fabric["start_cycle"].get<long long>();
  const auto end = begin + fabric["total_cycles"].get<long long>();
  std::map<int, long long> task_cycles; // per tile
  std::map<int, long long> next_start;  // a tile's tasks follow one another
  for (const auto& launch : run.report["launches"]) {
    if (!launch.contains("tile"))
      continue;
    const int tile = launch["tile"].get<int>();
    const auto start = launch["start_cycle"].get<long long>();
    const auto makespan = launch["makespan"].get<long long>();
    EXPECT_GE(start, begin) << "task on tile " << tile;
    EXPECT_LE(start + makespan, end) << "task on tile " << tile;
    if (next_start.count(tile)) { // braces: EXPECT_* expands to an if-else
      EXPECT_EQ(start, next_start[tile]) << "task on tile " << tile;
    }
    next_start[tile] = start + makespan;
    task_cycles[tile] += makespan;
  }
  ASSERT_EQ(task_cycles.size(), static_cast<std::size_t>(tiles));
  // Per tile: the tasks' cycles are the tile's compute in the fabric's own statistics.
  const auto& task_warps = fabric["task_warps"];
  EXPECT_EQ(task_warps["launches"].get<int>(), tiles * tasks_per_tile);
  ASSERT_EQ(task_warps["per_tile"].size(), static_cast<std::size_t>(tiles));
  for (const auto& entry : task_warps["per_tile"]) {
    const int tile = entry["tile"].get<int>();
    EXPECT_EQ(entry["launches"].get<int>(), tasks_per_tile);
    EXPECT_EQ(entry["cycles"].get<long long>(), task_cycles[tile]);
    EXPECT_EQ(entry["cycles"].get<long long>(),
              fabric["tiles"]["per_tile"][static_cast<std::size_t>(tile)]["compute_cycles"].get<long long>());
    for (const auto& warp : entry["warps"]) {
      EXPECT_GT(warp["utilization"].get<double>(), 0.0);
      EXPECT_LE(warp["utilization"].get<double>(), 1.0);
    }
  }
  // The trace: every tile's task warps in a process of their own, inside the launch.
  std::map<int, int> events_per_process;
  for (const auto& e : run.trace["traceEvents"]) {
    if (e["ph"] != "X")
      continue;
    ++events_per_process[e["pid"].get<int>()];
    EXPECT_GE(e["ts"].get<long long>(), begin);
    EXPECT_LE(e["ts"].get<long long>() + e["dur"].get<long long>(), end);
  }
  EXPECT_EQ(events_per_process.size(), static_cast<std::size_t>(tiles));
}

TEST(ComposedReport, TileGemmTasksRunInsideTheirTilesComputePhase) {
  expect_tasks_inside_their_launch(TILE_GEMM_PROGRAM, 4, 4);
}

TEST(ComposedReport, BatchStatisticsPipelinesPrecedeTheAllReduce) {
  expect_tasks_inside_their_launch(BATCH_STATISTICS_PROGRAM, 4, 1);
  // The collective step starts where the forall step ends.
  const SimRun run = run_on_sim(BATCH_STATISTICS_PROGRAM);
  const json* forall = nullptr;
  const json* ring = nullptr;
  for (const auto& launch : run.report["launches"]) {
    if (launch.contains("task_warps"))
      forall = &launch;
    if (launch.contains("ring_bound"))
      ring = &launch;
  }
  ASSERT_TRUE(forall && ring);
  EXPECT_EQ((*ring)["start_cycle"].get<long long>(),
            (*forall)["start_cycle"].get<long long>() + (*forall)["total_cycles"].get<long long>());
  EXPECT_EQ((*forall)["start_cycle"].get<long long>(), 0);
}

} // namespace
