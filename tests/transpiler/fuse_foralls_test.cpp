// The fuse-foralls pass alone (pass_manager/fuse_foralls.h), on IR built here: consecutive
// element-wise foralls on one map become one forall whose task calls each body in order, with
// the further outputs carried as written reads at the task's own index; what it cannot fuse is
// refused at the step that breaks the rule, and the kernel is left as it was. (The dependence
// part of the rule, on the access relations, is tests/transpiler/tile_step_relations_test.cpp.)
#include "pass_manager/fuse_foralls.h"

#include "ir_builder.h"

#include <gtest/gtest.h>

#include <functional>

namespace {

using namespace s2p;
using ir::TileStep;

TileStep forall(unsigned line, std::string output, std::vector<TileStep::Read> reads,
                std::string body) {
  return test::forall_step(line, std::move(output), std::move(reads), std::move(body));
}

TileStep::Read own(const std::string& field) {
  return {field, {TileStep::IndexMap::own(1)}};
}

// y = 2x; z = y + x; w = z: three foralls on map "map"; Vd is on map "other".
ir::Kernel three_foralls() {
  ir::Kernel kernel;
  kernel.name = "k";
  auto& multi = kernel.multi_tile.emplace();
  multi.tiles = 4;
  for (const char* name : {"X", "Y", "Z", "W"})
    multi.distributed[std::string(name) + "d"] = {name, "map", sim::ElementType::kF32};
  multi.distributed["Vd"] = {"V", "other", sim::ElementType::kF32};
  multi.steps = {forall(10, "Yd", {own("Xd")}, "[&](auto i, auto& y, auto& x) { y[i] = 2 * x[i]; }"),
                 forall(11, "Zd", {own("Yd"), own("Xd")},
                        "[&](auto i, auto& z, auto& y, auto& x) { z[i] = y[i] + x[i]; }"),
                 forall(12, "Wd", {own("Zd")}, "[&](auto i, auto& w, auto& z) { w[i] = z[i]; }")};
  return kernel;
}

TEST(FuseForalls, ConsecutiveForallsBecomeOneTaskCallingEachBodyInOrder) {
  const ir::Kernel kernel = three_foralls();
  ir::Diagnostics diags;
  const auto fused = pass_manager::apply_fusions(kernel, {{0, 3, "p.json"}}, {}, diags);
  ASSERT_TRUE(fused) << diags.items().front().message;
  ASSERT_EQ(fused->multi_tile->steps.size(), 1u);
  const TileStep& step = fused->multi_tile->steps[0];
  EXPECT_EQ(step.output, "Yd");
  EXPECT_EQ(step.loc.line, 10u);
  EXPECT_TRUE(step.output_read) << "a later body reads the first one's output";
  // The further outputs first, marked written, at the task's own index; then what is only read.
  ASSERT_EQ(step.reads.size(), 3u);
  EXPECT_EQ(step.reads[0].field, "Zd");
  EXPECT_TRUE(step.reads[0].written);
  EXPECT_EQ(step.reads[1].field, "Wd");
  EXPECT_TRUE(step.reads[1].written);
  EXPECT_EQ(step.reads[2].field, "Xd");
  EXPECT_FALSE(step.reads[2].written);
  EXPECT_EQ(step.body,
            "[&](const auto& s2p_fused_i, auto& s2p_fused_Yd, auto& s2p_fused_Zd, auto& "
            "s2p_fused_Wd, auto& s2p_fused_Xd) {\n"
            "([&](auto i, auto& y, auto& x) { y[i] = 2 * x[i]; })(s2p_fused_i, s2p_fused_Yd, "
            "s2p_fused_Xd);\n"
            "([&](auto i, auto& z, auto& y, auto& x) { z[i] = y[i] + x[i]; })(s2p_fused_i, "
            "s2p_fused_Zd, s2p_fused_Yd, s2p_fused_Xd);\n"
            "([&](auto i, auto& w, auto& z) { w[i] = z[i]; })(s2p_fused_i, s2p_fused_Wd, "
            "s2p_fused_Zd);\n}");
  EXPECT_EQ(step.text, "forall at line 10\nforall at line 11\nforall at line 12");
  EXPECT_EQ(kernel.multi_tile->steps.size(), 3u) << "the input is left as it was";
}

TEST(FuseForalls, TwoFusionsOfOneKernelKeepTheStepsAsWritten) {
  ir::Kernel kernel = three_foralls();
  kernel.multi_tile->steps.push_back(
      forall(13, "Xd", {own("Wd")}, "[&](auto i, auto& x, auto& w) { x[i] = w[i]; }"));
  ir::Diagnostics diags;
  // Step numbers count the kernel as written, whichever fusion is applied first.
  const auto fused =
      pass_manager::apply_fusions(kernel, {{0, 2, "p.json"}, {2, 2, "p.json"}}, {}, diags);
  ASSERT_TRUE(fused);
  ASSERT_EQ(fused->multi_tile->steps.size(), 2u);
  EXPECT_EQ(fused->multi_tile->steps[0].output, "Yd");
  EXPECT_EQ(fused->multi_tile->steps[1].output, "Wd");
  EXPECT_EQ(fused->multi_tile->steps[1].loc.line, 12u);
  EXPECT_TRUE(pass_manager::can_fuse(*kernel.multi_tile, 1, 3));
}

TEST(FuseForalls, RefusesWhatItCannotFuseAtTheStepThatBreaksTheRule) {
  struct Case {
    std::vector<pass_manager::StepFusion> fusions;
    std::function<void(ir::Kernel&)> change;
    unsigned line; // 0: at the kernel's name
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{1, 3, "p.json"}}, {}, 0,
       "plan p.json fuses steps 1..3 but the kernel has 3 steps (0..2)"},
      {{{0, 1, "p.json"}}, {}, 0, "plan p.json fuses steps 0..0 but the kernel has 3 steps"},
      {{{0, 2, "p.json"}, {1, 2, "p.json"}}, {}, 0, "p.json: fusions of steps 0 and 1 overlap"},
      {{{0, 2, "p.json"}}, [](ir::Kernel& k) { k.multi_tile->steps[1].output = "Vd"; }, 11,
       "step 1 writes 'Vd' on map 'other' and step 0 writes 'Yd' on map 'map'"},
      {{{0, 2, "p.json"}}, [](ir::Kernel& k) { k.multi_tile->steps[1].reads.push_back(own("Zd")); },
       11, "step 1 reads 'Zd', its output, at other indices"},
      {{{0, 2, "p.json"}},
       [](ir::Kernel& k) { k.multi_tile->steps[1].kind = TileStep::Kind::AllReduce; }, 11,
       "step 1 is "},
      {{{0, 2, "p.json"}}, [](ir::Kernel& k) { k.multi_tile->steps[1].reads.push_back(own("Qd")); },
       11, "step 1 reads 'Qd', whose field and map are not known to seq2par"},
  };
  for (const Case& c : cases) {
    ir::Kernel kernel = three_foralls();
    if (c.change)
      c.change(kernel);
    ir::Diagnostics diags;
    EXPECT_FALSE(pass_manager::apply_fusions(kernel, c.fusions, {"k.cpp", 2, 1}, diags)) << c.error;
    ASSERT_EQ(diags.items().size(), 1u) << c.error;
    EXPECT_NE(diags.items()[0].message.find(c.error), std::string::npos) << diags.items()[0].message;
    EXPECT_EQ(diags.items()[0].loc.line, c.line == 0 ? 2u : c.line) << c.error;
  }
  ir::Kernel warp_kernel;
  warp_kernel.name = "w";
  ir::Diagnostics diags;
  EXPECT_FALSE(pass_manager::apply_fusions(warp_kernel, {{0, 2, "p.json"}}, {}, diags));
  EXPECT_NE(diags.items().at(0).message.find("'w' is not a multi-tile kernel"), std::string::npos);
}

} // namespace
