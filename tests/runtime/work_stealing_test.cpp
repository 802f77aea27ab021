// Work stealing (optional): the replayed pop-top / steal-bottom plan,
// and foralls run with S2P_WORK_STEALING=1 on both backends against the sequential forall.
#include <seq2par/runtime.h>
#include <seq2par/work_stealing.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace {

using s2p::index_map;
using s2p::input_access;

struct Env {
  Env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~Env() { unsetenv(name_); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

private:
  const char* name_;
};

// Tile 0 is dealt five times as many rows as the others (weights as for a faster tile),
// but every simulated tile is equally fast: the others run dry first. Tasks are whole
// 16-row segments (the memory blocks), so a stolen task moves no more than it computes.
s2p::resource_map<2> lopsided_rows() {
  return s2p::resource_map<2>::block_cyclic({128, 128}, {16, 128}, 4).weights({5.0, 1.0, 1.0, 1.0});
}

std::vector<input_access<2>> add_transpose_inputs(const s2p::resource_map<2>& map) {
  return {{"A", &map, index_map<2>::identity(), 8}, {"B", &map, index_map<2>::transpose(), 8}};
}

// C = A + B^T over the lopsided map, planned by owner-copy: what the steals start from.
class LopsidedPlan : public ::testing::Test {
protected:
  s2p::steal_result steal(const s2p::steal_costs& costs) const {
    return s2p::plan_work_stealing<2>(plan, map, inputs, 8, costs);
  }
  const s2p::resource_map<2> map = lopsided_rows();
  const std::vector<input_access<2>> inputs = add_transpose_inputs(map);
  const s2p::owner_copy_plan plan = s2p::plan_owner_copy<2>(map, inputs);
};

TEST_F(LopsidedPlan, EveryTaskRunsOnceAndStolenResultsGoToTheirOwners) {
  ASSERT_TRUE(plan.error.empty());
  s2p::steal_costs fast_links; // moving a task's blocks (its output both ways) pays
  fast_links.bytes_per_cycle = 32;
  const auto stealing = steal(fast_links);
  EXPECT_GT(stealing.stolen, 0);
  std::map<std::vector<std::int64_t>, int> runner;
  for (std::size_t t = 0; t < stealing.runs.size(); ++t)
    for (const auto& task : stealing.runs[t])
      EXPECT_TRUE(runner.emplace(task.block, static_cast<int>(t)).second) << "task run twice";
  EXPECT_EQ(runner.size(), plan.tasks.size());
  for (const auto& task : plan.tasks) { // a task not stolen runs on its owner
    // Braces: EXPECT_* expands to an if-else, which GCC's -Wdangling-else flags otherwise.
    if (runner.at(task.block) != task.tile) {
      EXPECT_TRUE(std::any_of(stealing.returns.begin(), stealing.returns.end(),
                              [&](const s2p::task_return& r) {
                                return r.block == task.block && r.to_tile == task.tile &&
                                       r.from_tile == runner.at(task.block);
                              }));
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(stealing.returns.size()), stealing.stolen);
  // Thieves take from the bottom of the victim's queue: tile 0's last tasks.
  const auto& queue0 = plan.queues[0];
  EXPECT_EQ(stealing.runs[0].size() + static_cast<std::size_t>(stealing.stolen), queue0.size());
  for (std::size_t k = 0; k < stealing.runs[0].size(); ++k)
    EXPECT_EQ(stealing.runs[0][k].block, queue0[k].block);
  // Fetches go to thieves, from the owners of the blocks, and never repeat an owner-copy move.
  std::set<std::tuple<std::string, std::vector<std::int64_t>, int>> moved;
  for (const auto& m : plan.moves)
    moved.insert({m.field, m.block, m.to_tile});
  for (const auto& m : stealing.extra_moves) {
    EXPECT_TRUE(moved.insert({m.field, m.block, m.to_tile}).second);
    EXPECT_NE(m.from_tile, m.to_tile);
  }
}

// A body may read its output at its own index (y = y * 0.5 + x), and the launch is not told
// whether it does: each run of a stolen task's output goes to the thief before the tasks, from
// where the return takes it home afterwards.
TEST(WorkStealing, AStolenTasksOutputRunsGoToTheThiefBeforeTheTasks) {
  const auto map = lopsided_rows();
  s2p::steal_costs greedy;
  greedy.free_transfers = true;
  const s2p::rt::forall_field_spec<2> out{"C", "f64", 8, &map, {}};
  const std::vector<s2p::rt::forall_field_spec<2>> inputs{
      {"A", "f64", 8, &map, {index_map<2>::identity()}}};
  const auto layout = s2p::rt::plan_forall<2>(4, out, inputs, greedy, false);
  const auto& program = layout.program;
  ASSERT_GT(program.stolen_tasks, 0);
  ASSERT_FALSE(program.returns.empty());
  std::int64_t returned = 0;
  for (const auto& back : program.returns) {
    returned += back.bytes;
    EXPECT_TRUE(std::any_of(program.moves.begin(), program.moves.end(), [&](const auto& m) {
      return m.field == 0 && m.from_tile == back.to_tile && m.to_tile == back.from_tile &&
             m.from_offset == back.to_offset && m.to_offset == back.from_offset &&
             m.bytes == back.bytes;
    })) << "a stolen run of " << back.bytes << " bytes from tile " << back.to_tile;
  }
  EXPECT_GE(program.stealing_bytes, 2 * returned); // both ways, plus any input fetches
}

// A body seq2par proved never reads its output (output_write_only): the thief gets none of the
// output's values, only the result goes home.
TEST(WorkStealing, AWriteOnlyOutputIsNotFetchedByTheThief) {
  const auto map = lopsided_rows();
  s2p::steal_costs greedy;
  greedy.free_transfers = true;
  greedy.fetch_output = false;
  const s2p::rt::forall_field_spec<2> out{"C", "f64", 8, &map, {}};
  const std::vector<s2p::rt::forall_field_spec<2>> inputs{
      {"A", "f64", 8, &map, {index_map<2>::identity()}}};
  const auto layout = s2p::rt::plan_forall<2>(4, out, inputs, greedy, false);
  const auto& program = layout.program;
  ASSERT_GT(program.stolen_tasks, 0);
  std::int64_t fetched = 0; // the inputs the thieves lack: A is on C's map, so owner-copy moves none
  for (const auto& move : program.moves) {
    EXPECT_NE(move.field, 0) << "an output move from tile " << move.from_tile;
    fetched += move.bytes;
  }
  std::int64_t returned = 0;
  for (const auto& back : program.returns)
    returned += back.bytes;
  EXPECT_GT(returned, 0);
  EXPECT_EQ(program.stealing_bytes, returned + fetched);
}

TEST(WorkStealing, BalancedQueuesStealNothing) {
  const auto map = s2p::resource_map<2>::block_cyclic({64, 64}, {16, 64}, 4);
  const auto inputs = add_transpose_inputs(map);
  const auto plan = s2p::plan_owner_copy<2>(map, inputs);
  EXPECT_EQ(s2p::plan_work_stealing<2>(plan, map, inputs, 8, {}).stolen, 0);
}

TEST(WorkStealing, BlocksThatAreNotContiguousGoHomeInRuns) {
  // 16 x 16 tasks inside 16 x 64 memory blocks: a task's rows are 16 ranges of its memory
  // block, and its result goes back as 16 runs.
  const auto map = s2p::resource_map<2>::block_cyclic({64, 64}, {16, 64}, 4)
                       .weights({5.0, 1.0, 1.0, 1.0})
                       .algorithmic_blocks({16, 16});
  const auto plan = s2p::plan_owner_copy<2>(map, {});
  s2p::steal_costs greedy; // steals anything that balances the tiles
  greedy.free_transfers = true;
  const auto stealing = s2p::plan_work_stealing<2>(plan, map, {}, 8, greedy);
  ASSERT_GT(stealing.stolen, 0);
  for (const auto& back : stealing.returns) {
    ASSERT_EQ(back.runs.size(), 16u);
    const std::int64_t column = back.block[1] * 16;
    for (std::size_t row = 0; row < back.runs.size(); ++row) {
      EXPECT_EQ(back.runs[row].offset, static_cast<std::int64_t>(row) * 64 + column);
      EXPECT_EQ(back.runs[row].elements, 16);
    }
  }
}

TEST_F(LopsidedPlan, TransfersThatCostMoreThanTheyGainAreNotMade) {
  s2p::steal_costs slow_links;
  slow_links.bytes_per_cycle = 1; // a block takes longer to move than to compute
  EXPECT_EQ(steal(slow_links).stolen, 0);
}

TEST_F(LopsidedPlan, GreedyStealsWhateverTransfersCost) {
  s2p::steal_costs greedy;
  greedy.bytes_per_cycle = 1;
  greedy.free_transfers = true;
  greedy.tiles_per_chip = 2; // chips do not hold it back either
  const auto stealing = steal(greedy);
  EXPECT_GT(stealing.stolen, 0);
  EXPECT_TRUE(
      std::any_of(stealing.returns.begin(), stealing.returns.end(),
                  [](const s2p::task_return& r) { return r.from_tile / 2 != r.to_tile / 2; }));
}

TEST_F(LopsidedPlan, StealsStayOnTheVictimsChip) {
  s2p::steal_costs chips;
  chips.tiles_per_chip = 2;
  for (const auto& r : steal(chips).returns)
    EXPECT_EQ(r.from_tile / 2, r.to_tile / 2);
}

TEST(WorkStealing, ContiguousRuns) {
  using s2p::work_stealing_detail::contiguous_runs;
  using Runs = std::vector<std::pair<std::int64_t, std::int64_t>>;
  auto runs = [](const auto& list) {
    Runs out;
    for (const auto& r : list)
      out.push_back({r.offset, r.elements});
    return out;
  };
  const s2p::grid<2> memory{{16, 64}, {32, 0}};
  EXPECT_EQ(runs(contiguous_runs<2>({{8, 64}, {40, 0}}, memory)), (Runs{{8 * 64, 8 * 64}}));
  EXPECT_EQ(runs(contiguous_runs<2>({{1, 16}, {33, 16}}, memory)), (Runs{{64 + 16, 16}}));
  EXPECT_EQ(runs(contiguous_runs<2>({{2, 16}, {32, 0}}, memory)), (Runs{{0, 16}, {64, 16}}));
  EXPECT_EQ(runs(contiguous_runs<2>(memory, memory)), (Runs{{0, 16 * 64}}));
  const s2p::grid<3> cube{{2, 2, 16}, {0, 0, 0}};
  EXPECT_EQ(runs(contiguous_runs<3>({{1, 1, 8}, {0, 1, 8}}, cube)), (Runs{{16 + 8, 8}}));
  EXPECT_EQ(runs(contiguous_runs<3>({{1, 2, 8}, {0, 0, 8}}, cube)), (Runs{{8, 8}, {24, 8}}));
  EXPECT_EQ(runs(contiguous_runs<3>({{2, 2, 8}, {0, 0, 0}}, cube)),
            (Runs{{0, 8}, {16, 8}, {32, 8}, {48, 8}}));
  EXPECT_EQ(runs(contiguous_runs<3>({{2, 1, 16}, {0, 1, 0}}, cube)), (Runs{{16, 16}, {48, 16}}));
}

class StealingForall : public ::testing::TestWithParam<const char*> {};

struct Outcome {
  std::vector<double> c;
  std::int64_t cycles = 0;
  std::int64_t stolen = 0;
};

// Over the lopsided map: C = A + B^T in the global view, C = A + B block by block in the
// local-global view; C's elements of type `Out` (a stolen task's output moves both ways).
template <class Out = double>
Outcome add_transpose(const char* backend, bool steal, bool blocks,
                      const s2p::resource_map<2>& map = lopsided_rows(), const char* mode = "1") {
  Env use("S2P_BACKEND", backend);
  Env stealing("S2P_WORK_STEALING", steal ? mode : "0");
  std::vector<double> a(128 * 128), b(a.size());
  Outcome out;
  std::vector<Out> c(a.size(), Out(-1));
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>(k % 101) * 0.5;
    b[k] = static_cast<double>((k * 7) % 89) - 40.0;
  }
  const auto Cd = s2p::agile(s2p::field<2, Out>(c.data(), {128, 128}), map);
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {128, 128}), map);
  const auto Bd = s2p::agile(s2p::field<2, double>(b.data(), {128, 128}), map);
  const s2p::rt::tile_kernel_info info{"stolen", "test.cpp", 4};
  if (blocks) {
    const auto Ct = s2p::tiles(Cd);
    const auto At = s2p::tiles(Ad), Bt = s2p::tiles(Bd);
    s2p::rt::forall_tiles(
        info, 4, Ct, "Ct",
        [](s2p::index<2> blk, auto& Ct, auto& At, auto& Bt) {
          const auto c = Ct(blk);
          const auto a_block = At(blk);
          const auto b_block = Bt(blk); // 16 x 128 blocks: B's transpose is no block of B
          s2p::forall(c.extent(),
                      [&](s2p::index<2> j) { c[j] = static_cast<Out>(a_block[j] + b_block[j]); });
        },
        s2p::rt::tile_reads(At, "At", {index_map<2>::identity()}),
        s2p::rt::tile_reads(Bt, "Bt", {index_map<2>::identity()}));
  } else {
    s2p::rt::forall(
        info, 4, Cd, "Cd",
        [](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
          Cd[i] = static_cast<Out>(Ad[i] + Bd[{i[1], i[0]}]);
        },
        s2p::rt::reads(Ad, "Ad", {index_map<2>::identity()}),
        s2p::rt::reads(Bd, "Bd", {index_map<2>::transpose()}));
  }
  out.c.assign(c.begin(), c.end());
  if (std::string(backend) == "sim") {
    const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
    const auto& launch = report["launches"].back();
    out.cycles = launch["total_cycles"].get<std::int64_t>();
    if (launch["owner_copy"].contains("work_stealing"))
      out.stolen = launch["owner_copy"]["work_stealing"]["stolen_tasks"].get<std::int64_t>();
  }
  return out;
}

std::vector<double> sequential_add(bool transposed) {
  std::vector<double> c(128 * 128);
  for (std::int64_t i = 0; i < 128; ++i)
    for (std::int64_t j = 0; j < 128; ++j) {
      const auto k = static_cast<std::size_t>(i * 128 + j);
      const auto t = transposed ? static_cast<std::size_t>(j * 128 + i) : k;
      c[k] = static_cast<double>(k % 101) * 0.5 + (static_cast<double>((t * 7) % 89) - 40.0);
    }
  return c;
}

TEST_P(StealingForall, GlobalAndLocalGlobalViewsComputeTheSequentialResult) {
  if (std::string(GetParam()) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  EXPECT_EQ(add_transpose(GetParam(), true, false).c, sequential_add(true));
  EXPECT_EQ(add_transpose(GetParam(), true, true).c, sequential_add(false));
}

// Stolen 32 x 32 tasks of 32 x 128 memory blocks: each result goes home in 32 runs.
TEST_P(StealingForall, TasksThatAreNotContiguousComputeTheSequentialResult) {
  if (std::string(GetParam()) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  const auto map = s2p::resource_map<2>::block_cyclic({128, 128}, {32, 128}, 4)
                       .weights({5.0, 1.0, 1.0, 1.0})
                       .algorithmic_blocks({32, 32});
  const Outcome global = add_transpose(GetParam(), true, false, map, "greedy");
  EXPECT_EQ(global.c, sequential_add(true));
  EXPECT_EQ(add_transpose(GetParam(), true, true, map, "greedy").c, sequential_add(false));
  if (std::string(GetParam()) == "sim") { // braces: EXPECT_* expands to an if-else
    EXPECT_GT(global.stolen, 0);
  }
}

// y = y * 0.5 + x over a map that deals 64-element blocks 6:1:1:1 to equally fast tiles, in
// the global view or block by block (y[j] += ...): each body reads its output at its own
// index, so a stolen task must start from the block's values, not from an empty copy.
struct InoutOutcome {
  std::vector<float> y;
  std::int64_t stolen = 0;
};

InoutOutcome decay(const char* backend, bool blocks) {
  Env use("S2P_BACKEND", backend);
  Env stealing("S2P_WORK_STEALING", "greedy");
  std::vector<float> x(4096);
  InoutOutcome out;
  out.y.resize(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = static_cast<float>(k % 97) * 0.25f;
    out.y[k] = static_cast<float>(k % 13);
  }
  const auto map = s2p::resource_map<1>::block_cyclic({4096}, {64}, 4).weights({6.0, 1.0, 1.0, 1.0});
  const auto Yd = s2p::agile(s2p::field<1, float>(out.y.data(), {4096}), map);
  const auto Xd = s2p::agile(s2p::field<1, float>(x.data(), {4096}), map);
  const s2p::rt::tile_kernel_info info{"decay", "test.cpp", 4};
  if (blocks) {
    const auto Yt = s2p::tiles(Yd), Xt = s2p::tiles(Xd);
    s2p::rt::forall_tiles(
        info, 4, Yt, "Yt",
        [](s2p::index<1> b, auto& Yt, auto& Xt) {
          const auto y = Yt(b);
          const auto x_block = Xt(b);
          s2p::forall(y.extent(), [&](s2p::index<1> j) { y[j] += x_block[j]; });
        },
        s2p::rt::tile_reads(Xt, "Xt", {index_map<1>::identity()}));
  } else {
    s2p::rt::forall(
        info, 4, Yd, "Yd",
        [](s2p::index<1> i, auto& Yd, auto& Xd) { Yd[i] = Yd[i] * 0.5f + Xd[i]; },
        s2p::rt::reads(Xd, "Xd", {index_map<1>::identity()}));
  }
  if (std::string(backend) == "sim") {
    const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
    out.stolen =
        report["launches"].back()["owner_copy"]["work_stealing"]["stolen_tasks"].get<std::int64_t>();
  }
  return out;
}

TEST_P(StealingForall, StolenTasksStartFromTheOutputsValues) {
  if (std::string(GetParam()) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  for (const bool blocks : {false, true}) {
    const InoutOutcome out = decay(GetParam(), blocks);
    std::vector<std::size_t> wrong; // elements that differ from the sequential loop's
    for (std::size_t k = 0; k < out.y.size(); ++k) {
      const float y = static_cast<float>(k % 13), x = static_cast<float>(k % 97) * 0.25f;
      if (out.y[k] != (blocks ? y + x : y * 0.5f + x))
        wrong.push_back(k);
    }
    EXPECT_TRUE(wrong.empty()) << wrong.size() << " wrong elements from " << (wrong.empty() ? 0 : wrong.front())
                               << " on, blocks " << blocks;
    if (std::string(GetParam()) == "sim") { // braces: EXPECT_* expands to an if-else
      EXPECT_GT(out.stolen, 0) << "blocks " << blocks;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StealingForall, ::testing::Values("sim", "threads"));

TEST(StealingOnTheFabric, StolenTasksShortenTheSimulatedRun) {
  if (!s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  // On the fabric before calibration (8-byte tile ports): moving a row is cheap enough for the
  // planner to steal, a row of float results (going to the thief and back) with it. On the
  // calibrated GC200 (4-byte ports) moving this workload's rows costs more than it saves, and
  // the planner rightly steals nothing (below).
  {
    Env fabric("S2P_FABRIC", S2P_SIM_FABRICS_DIR "/legacy.json");
    const Outcome owner_only = add_transpose<float>("sim", false, false);
    const Outcome stolen = add_transpose<float>("sim", true, false);
    EXPECT_EQ(owner_only.stolen, 0);
    EXPECT_GT(stolen.stolen, 0);
    EXPECT_LT(stolen.cycles, owner_only.cycles);
  }
  const Outcome owner_only = add_transpose("sim", false, false);
  const Outcome stolen = add_transpose("sim", true, false);
  EXPECT_EQ(stolen.stolen, 0);
  EXPECT_EQ(stolen.cycles, owner_only.cycles);
}

TEST(StealingOnTheFabric, AnUnknownSettingIsAnError) {
  Env bad("S2P_WORK_STEALING", "maybe");
  EXPECT_THROW(static_cast<void>(s2p::rt::work_stealing_enabled()), std::invalid_argument);
}

} // namespace
