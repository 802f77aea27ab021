// --plan's variants on hand-built IR (no Clang): the calls of an intrinsic, in a warp kernel and
// in a forall task's warp pipeline, call the chosen variant with its cost; a choice the file's
// S2P_VARIANTS does not allow is an error naming the plan's field.
#include "ir/call_text.h"
#include "pass_manager/substitute_variants.h"

#include <gtest/gtest.h>

namespace s2p::pass_manager {
namespace {

ir::ScheduleNode call_of(const std::string& callee, const std::string& text) {
  ir::ScheduleNode node;
  node.kind = ir::ScheduleNode::Kind::Call;
  node.call.callee = callee;
  node.call.text = text;
  node.call.cost = "4 * n";
  node.call.parameters = {"s2p::in<float> a", "s2p::out<float> r", "int n"};
  return node;
}

ir::Kernel kernel_calling_dot() {
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.root.kind = ir::ScheduleNode::Kind::Kernel;
  kernel.root.children = {call_of("dot", "dot(a[0], r[0], 16)"), call_of("store", "store(r[0], out)")};
  ir::VariantGroup group;
  group.loc = {"k.cpp", 7, 1};
  group.members = {{"dot", "4 * n", {"s2p::in<float> a", "s2p::out<float> r", "int n"}},
                   {"dot_fast", "m", {"s2p::in<float> x", "s2p::out<float> y", "int m"}}};
  kernel.variants = {group};
  return kernel;
}

const ir::SourceLocation kDeclared{"k.cpp", 9, 1};

TEST(SubstituteVariants, CallsRunTheChosenVariantWithItsCost) {
  ir::Diagnostics diags;
  const auto out = substitute_variants(kernel_calling_dot(), {{"dot", "dot_fast", 0, "p.json"}}, kDeclared, diags);
  ASSERT_TRUE(out.has_value()) << diags.items().front().message;
  const ir::CallSite& call = out->root.children[0].call;
  EXPECT_EQ(call.callee, "dot_fast");
  EXPECT_EQ(ir::render_call(call, {}), "dot_fast(a[0], r[0], 16)");
  EXPECT_EQ(call.cost, "m"); // the variant's S2P_COST, over its own parameter names
  EXPECT_EQ(call.parameters[2], "int m");
  EXPECT_EQ(out->root.children[1].call.callee, "store"); // other calls as they were
}

TEST(SubstituteVariants, AForallTasksWarpPipelineIsSubstitutedToo) {
  ir::Kernel kernel = kernel_calling_dot();
  auto task = std::make_shared<ir::Kernel>(kernel);
  kernel.root.children.clear();
  kernel.multi_tile.emplace();
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.task = task;
  kernel.multi_tile->steps = {step};
  ir::Diagnostics diags;
  const auto out = substitute_variants(kernel, {{"dot", "dot_fast", 0, "p.json"}}, kDeclared, diags);
  ASSERT_TRUE(out.has_value()) << diags.items().front().message;
  EXPECT_EQ(out->multi_tile->steps[0].task->root.children[0].call.callee, "dot_fast");
  EXPECT_EQ(task->root.children[0].call.callee, "dot"); // the kernel as extracted is unchanged
}

std::string refusal(const std::vector<VariantUse>& uses, const ir::Kernel& kernel = kernel_calling_dot()) {
  ir::Diagnostics diags;
  if (substitute_variants(kernel, uses, kDeclared, diags))
    return "(accepted)";
  return std::to_string(diags.items().front().loc.line) + ": " + diags.items().front().message;
}

TEST(SubstituteVariants, ChoicesTheFileDoesNotDeclareNameTheField) {
  EXPECT_EQ(refusal({{"dot", "dot_blocked", 1, "p.json"}}),
            "9: plan p.json: field 'variants[1].variant': 'dot_blocked' is not a variant of 'dot' (the "
            "S2P_VARIANTS at line 7 declares dot, dot_fast)");
  EXPECT_EQ(refusal({{"axpy", "axpy_fast", 0, "p.json"}}),
            "9: plan p.json: field 'variants[0].op': 'axpy' is not an intrinsic an S2P_VARIANTS of this file names");
  ir::Kernel none = kernel_calling_dot();
  none.root.children.erase(none.root.children.begin());
  EXPECT_EQ(refusal({{"dot", "dot_fast", 0, "p.json"}}, none),
            "9: plan p.json: field 'variants[0].op': kernel 'k' calls no 'dot'");
}

} // namespace
} // namespace s2p::pass_manager
