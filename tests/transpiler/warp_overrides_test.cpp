// The warp-overrides pass alone (pass_manager/plan_overrides.h, apply_warp_overrides), on IR
// built here: --plan's "warps" move intrinsic calls, named by line, file:line or intrinsic, onto
// other warps of a warp kernel or of a multi-tile kernel's tasks; a move that names no call,
// a warp out of range, or one that separates calls sharing mutable state is refused.
#include "ir_builder.h"
#include "pass_manager/plan_overrides.h"

#include <gtest/gtest.h>

#include <memory>

namespace {

using namespace s2p;
using test::KernelBuilder;
using test::lit;

// load (line 10) -> scale (line 11) -> store (line 12), all on warp 0, in file `k.cpp`.
ir::Kernel three_calls(const std::vector<std::string>& scale_state = {},
                       const std::vector<std::string>& store_state = {}) {
  KernelBuilder b("k");
  const int pool = b.pool("P", 20);
  const int x = b.tensor("x", pool, 0, 1, 10);
  const int y = b.tensor("y", pool, 10, 1, 10);
  b.add(b.call("load", 0, {{x, lit(0), ir::AccessMode::Write}}, 10));
  b.add(b.call("scale", 0, {{x, lit(0), ir::AccessMode::Read}, {y, lit(0), ir::AccessMode::Write}},
               11));
  b.add(b.call("store", 0, {{y, lit(0), ir::AccessMode::Read}}, 12));
  ir::Kernel kernel = b.kernel();
  for (auto& node : kernel.root.children)
    node.call.loc.file = "/home/user/src/k.cpp";
  kernel.root.children[1].call.shared_state = scale_state;
  kernel.root.children[2].call.shared_state = store_state;
  return kernel;
}

std::vector<int> warps_of(const ir::Kernel& kernel) {
  std::vector<int> warps;
  for (const auto& node : kernel.root.children)
    warps.push_back(node.call.warp);
  return warps;
}

std::string only_error(const ir::Diagnostics& diags) {
  EXPECT_EQ(diags.items().size(), 1u);
  return diags.items().empty() ? "" : diags.items().front().message;
}

TEST(WarpOverrides, MovesCallsNamedByLineFileLineOrIntrinsic) {
  const ir::Kernel kernel = three_calls();
  ir::Diagnostics diags;
  const auto moved = pass_manager::apply_warp_overrides(
      kernel, {{"11", 1, "k.plan.json"}, {"src/k.cpp:12", 2, "k.plan.json"}}, {}, diags);
  ASSERT_TRUE(moved) << only_error(diags);
  EXPECT_EQ(warps_of(*moved), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(warps_of(kernel), (std::vector<int>{0, 0, 0})) << "the input is left as it was";

  const auto by_name =
      pass_manager::apply_warp_overrides(kernel, {{"store", 3, "k.plan.json"}}, {}, diags);
  ASSERT_TRUE(by_name);
  EXPECT_EQ(warps_of(*by_name), (std::vector<int>{0, 0, 3}));
  EXPECT_TRUE(diags.items().empty());
}

TEST(WarpOverrides, AFileNamesOnlyWholePathComponents) {
  ir::Diagnostics diags;
  // "k.cpp" is a suffix of ".../k.cpp"; "/k.cpp"'s neighbour "rc/k.cpp" is not a component.
  EXPECT_TRUE(pass_manager::apply_warp_overrides(three_calls(), {{"k.cpp:11", 1, "p"}}, {}, diags));
  EXPECT_FALSE(pass_manager::apply_warp_overrides(three_calls(), {{"rc/k.cpp:11", 1, "p"}}, {}, diags));
}

TEST(WarpOverrides, MovesTheCallsOfAMultiTileKernelsTasks) {
  ir::Kernel kernel;
  kernel.name = "tiles";
  kernel.multi_tile.emplace();
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.task = std::make_shared<const ir::Kernel>(three_calls());
  kernel.multi_tile->steps = {step, ir::TileStep{}};
  ir::Diagnostics diags;
  const auto moved = pass_manager::apply_warp_overrides(kernel, {{"scale", 1, "p"}}, {}, diags);
  ASSERT_TRUE(moved) << only_error(diags);
  EXPECT_EQ(warps_of(*moved->multi_tile->steps[0].task), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(warps_of(*kernel.multi_tile->steps[0].task), (std::vector<int>{0, 0, 0}))
      << "the task is copied, not moved in place";
}

TEST(WarpOverrides, RefusesWhatItCannotApply) {
  const ir::SourceLocation at{"k.cpp", 3, 6, 0};
  struct Case {
    std::vector<pass_manager::CallWarp> moves;
    ir::Kernel kernel;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{"13", 1, "k.plan.json"}},
       three_calls(),
       "k.plan.json: kernel 'k', warp override '13': no intrinsic call of the kernel is on that "
       "line or has that name"},
      {{{"scale", 64, "k.plan.json"}},
       three_calls(),
       "k.plan.json: kernel 'k', warp override 'scale': warp 64 is out of range; warps are "
       "numbered 0..63"},
      {{{"scale", -1, "k.plan.json"}}, three_calls(), "warp -1 is out of range"},
      {{{"scale", 1, "k.plan.json"}},
       three_calls({"counter"}, {"counter"}),
       "'store' (line 12) on warp 0 and 'scale' (line 11) on warp 1 both reach mutable state "
       "'counter'; warps run concurrently, so they would race on it"},
  };
  for (const Case& c : cases) {
    ir::Diagnostics diags;
    EXPECT_FALSE(pass_manager::apply_warp_overrides(c.kernel, c.moves, at, diags));
    ASSERT_EQ(diags.items().size(), 1u);
    EXPECT_NE(diags.items().front().message.find(c.error), std::string::npos)
        << diags.items().front().message;
    EXPECT_EQ(diags.items().front().loc.line, 3u);
  }
  // Moved together, calls sharing state stay on one warp: accepted.
  ir::Diagnostics diags;
  EXPECT_TRUE(pass_manager::apply_warp_overrides(three_calls({"counter"}, {"counter"}),
                                                 {{"scale", 1, "p"}, {"store", 1, "p"}}, {}, diags));
}

} // namespace
