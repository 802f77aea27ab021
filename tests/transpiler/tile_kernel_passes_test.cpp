// The passes of a multi-tile kernel before its schedules are planned, each alone on IR built
// here (pass_manager/tile_kernel_passes.h): `given-extents` and `split-tasks-into-warps`, the
// latter with a stand-in for the warp-split passes so that only its own work is tested.
#include "ir_builder.h"
#include "pass_manager/tile_kernel_passes.h"

#include <gtest/gtest.h>

#include <memory>

namespace {

using namespace s2p;

ir::Kernel tile_kernel(const std::string& name) {
  ir::Kernel kernel;
  kernel.name = name;
  auto& multi = kernel.multi_tile.emplace();
  multi.tiles = 4;
  multi.parameter_extents["X"] = {64};
  multi.extents_from = "the call at k.cpp:30";
  return kernel;
}

TEST(GivenExtents, ReplacesTheExtentsOfTheKernelItNames) {
  const pass_manager::GivenExtents given = {{"k", {{"X", {128, 2}}, {"Y", {7}}}}};
  ir::Kernel unknown = tile_kernel("k");
  unknown.multi_tile->no_extents_reason = "two calls pass different extents";
  const auto planned = pass_manager::apply_given_extents(unknown, given);
  ASSERT_TRUE(planned);
  EXPECT_EQ(planned->multi_tile->parameter_extents,
            (std::map<std::string, std::vector<std::int64_t>>{{"X", {128, 2}}, {"Y", {7}}}));
  EXPECT_EQ(planned->multi_tile->extents_from, "--extents k");
  EXPECT_EQ(planned->multi_tile->no_extents_reason, "");
  EXPECT_EQ(unknown.multi_tile->parameter_extents.at("X"), (std::vector<std::int64_t>{64}));

  EXPECT_FALSE(pass_manager::apply_given_extents(tile_kernel("other"), given))
      << "a kernel --extents does not name keeps its own";
  ir::Kernel warp_kernel;
  warp_kernel.name = "k";
  EXPECT_FALSE(pass_manager::apply_given_extents(warp_kernel, given));
}

// A forall step whose task is a warp kernel named `task`, with its body's head.
ir::TileStep task_step(const std::string& task, unsigned line) {
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.loc = {"k.cpp", line, 5, 0};
  step.body_head = "auto x = Xd.at(b);\n";
  step.body = "{ /* as written */ }";
  ir::Kernel kernel;
  kernel.name = task;
  step.task = std::make_shared<const ir::Kernel>(kernel);
  return step;
}

TEST(SplitTasksIntoWarps, EachTaskGetsItsPlannedBodyAndWarpOperations) {
  ir::Kernel kernel = tile_kernel("k");
  ir::TileStep plain;
  plain.body = "{ Yd[i] = 1; }";
  kernel.multi_tile->steps = {task_step("first", 10), plain, task_step("second", 20)};
  std::vector<std::string> planned;
  const auto plan_task = [&](const ir::Kernel& task) -> std::optional<pass_manager::KernelOutput> {
    planned.push_back(task.name);
    pass_manager::KernelOutput out;
    out.body = "{ run_" + task.name + "(); }";
    const bool first = task.name == "first";
    out.summary.warps = first ? 3 : 2;
    out.summary.channels = first ? 4 : 5;
    out.summary.warp_operations = first ? std::vector<std::int64_t>{6, 4, 2}
                                        : std::vector<std::int64_t>{9, 9};
    out.summary.files = {{task.name + ".warps.json", "{}"}};
    return out;
  };
  ir::Diagnostics diags;
  pass_manager::KernelSummary tasks;
  ASSERT_TRUE(pass_manager::split_tasks_into_warps(kernel, plan_task, diags, tasks));
  EXPECT_EQ(planned, (std::vector<std::string>{"first", "second"}));
  const auto& steps = kernel.multi_tile->steps;
  EXPECT_EQ(steps[0].body, "auto x = Xd.at(b);\n{ run_first(); }");
  EXPECT_EQ(steps[0].warp_operations, (std::vector<std::int64_t>{6, 4, 2}));
  EXPECT_EQ(steps[1].body, "{ Yd[i] = 1; }") << "a step without a task is left as it is";
  EXPECT_EQ(steps[2].body, "auto x = Xd.at(b);\n{ run_second(); }");
  EXPECT_EQ(tasks.warps, 3);
  EXPECT_EQ(tasks.channels, 9);
  ASSERT_EQ(tasks.files.size(), 2u);
  EXPECT_EQ(tasks.files[1].first, "second.warps.json");
  EXPECT_TRUE(diags.items().empty());
}

TEST(SplitTasksIntoWarps, ATaskWithoutCallsIsRefusedAtItsForall) {
  ir::Kernel kernel = tile_kernel("k");
  kernel.multi_tile->steps = {task_step("empty", 14)};
  ir::Diagnostics diags;
  pass_manager::KernelSummary tasks;
  const auto no_calls = [](const ir::Kernel&) {
    return std::optional<pass_manager::KernelOutput>(pass_manager::KernelOutput{});
  };
  EXPECT_FALSE(pass_manager::split_tasks_into_warps(kernel, no_calls, diags, tasks));
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].loc.line, 14u);
  EXPECT_NE(diags.items()[0].message.find("declares a pool but calls no intrinsic"),
            std::string::npos);

  // A task the warp-split passes refuse stops the pass; their errors are already reported.
  ir::Kernel refused = tile_kernel("k");
  refused.multi_tile->steps = {task_step("bad", 3), task_step("never", 4)};
  int calls = 0;
  const auto fails = [&](const ir::Kernel&) {
    ++calls;
    return std::optional<pass_manager::KernelOutput>();
  };
  ir::Diagnostics none;
  EXPECT_FALSE(pass_manager::split_tasks_into_warps(refused, fails, none, tasks));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(none.items().empty());
}

} // namespace
