// --plan's splits on hand-built IR (no Clang): a forall whose body writes several fields dealt
// into consecutive foralls, each with its own outputs and reads, and the cuts that are refused.
#include "pass_manager/split_foralls.h"

#include <gtest/gtest.h>

namespace s2p::pass_manager {
namespace {

using ir::TileStep;

TileStep::IndexMap at(std::int64_t offset) {
  return {{0}, {offset}};
}

TileStep::Statement statement(unsigned line, std::string text, std::vector<std::string> writes,
                              std::vector<TileStep::Read> reads) {
  TileStep::Statement s;
  s.loc = {"k.cpp", line, 5};
  s.text = std::move(text);
  s.writes = std::move(writes);
  s.reads = std::move(reads);
  return s;
}

// forall(Yd.extent(), [&](s2p::index<1> i) { <statements> }) writing Yd first, on map "map".
ir::Kernel kernel_with(std::vector<TileStep::Statement> statements) {
  TileStep step;
  step.kind = TileStep::Kind::Forall;
  step.loc = {"k.cpp", 10, 3};
  step.rank = 1;
  step.output = "Yd";
  step.index_parameter = "s2p::index<1> i";
  for (const auto& s : statements)
    for (const auto& field : s.writes)
      if (field != "Yd" && std::none_of(step.reads.begin(), step.reads.end(),
                                        [&](const TileStep::Read& r) { return r.field == field; }))
        step.reads.push_back({field, {at(0)}, true});
  for (const auto& s : statements)
    for (const auto& read : s.reads)
      for (const auto& map : read.maps)
        if (std::none_of(step.reads.begin(), step.reads.end(),
                         [&](const TileStep::Read& r) { return r.field == read.field && r.written; }) &&
            read.field != "Yd")
          step.add_read(read.field, map);
  step.statements = std::move(statements);
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.multi_tile.emplace();
  kernel.multi_tile->tiles = 4;
  kernel.multi_tile->steps.push_back(step);
  for (const char* field : {"Xd", "Yd", "Zd", "Wd"})
    kernel.multi_tile->distributed[field] = {std::string(1, static_cast<char>(field[0] + 32)),
                                             "map", sim::ElementType::kF32};
  return kernel;
}

std::vector<std::string> fields_of(const std::vector<TileStep::Read>& reads, bool written) {
  std::vector<std::string> out;
  for (const auto& r : reads)
    if (r.written == written)
      out.push_back(r.field);
  return out;
}

const ir::SourceLocation kDeclared{"k.cpp", 2, 1};

TEST(SplitForalls, OnePartPerStatementThatWritesAField) {
  const ir::Kernel kernel = kernel_with({
      statement(11, "Yd[i] = Xd[i] * 2.0f;", {"Yd"}, {{"Xd", {at(0)}}}),
      statement(12, "Zd[i] = Xd[i + 1] + Yd[i];", {"Zd"}, {{"Xd", {at(1)}}, {"Yd", {at(0)}}}),
  });
  EXPECT_EQ(max_split_parts(kernel.multi_tile->steps[0]), 2);
  ir::Diagnostics diags;
  const auto split = apply_splits(kernel, {{0, 0, "k.k.plan.json"}}, {}, kDeclared, diags);
  ASSERT_TRUE(split.has_value()) << (diags.items().empty() ? "" : diags.items().front().message);
  const auto& steps = split->multi_tile->steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].output, "Yd");
  EXPECT_EQ(fields_of(steps[0].reads, false), (std::vector<std::string>{"Xd"}));
  EXPECT_EQ(steps[1].output, "Zd");
  // The second part reads what the first wrote, at its own index: an ordinary read now.
  EXPECT_EQ(fields_of(steps[1].reads, false), (std::vector<std::string>{"Xd", "Yd"}));
  EXPECT_TRUE(fields_of(steps[1].reads, true).empty());
  EXPECT_EQ(steps[1].reads[0].maps, (std::vector<TileStep::IndexMap>{at(1)}));
  EXPECT_EQ(steps[0].body, "[&](s2p::index<1> i, auto& Yd, auto& Xd) {\nYd[i] = Xd[i] * 2.0f;\n}");
  EXPECT_EQ(steps[1].body, "[&](s2p::index<1> i, auto& Zd, auto& Xd, auto& Yd) {\nZd[i] = Xd[i + 1] + Yd[i];\n}");
  EXPECT_TRUE(steps[0].statements.empty()); // each part writes one field
}

// Three writing statements into two parts: the first alone, then the other two as one forall
// that writes two fields (the later one in place); a declaration goes with the next writer.
TEST(SplitForalls, PartsAreDealtEvenlyAndADeclarationGoesWithTheNextWriter) {
  auto declaration = statement(11, "const float t = Xd[i];", {}, {{"Xd", {at(0)}}});
  declaration.declares = {"t"};
  auto uses_t = statement(12, "Yd[i] = t;", {"Yd"}, {});
  uses_t.uses = {"t"};
  const ir::Kernel kernel = kernel_with({declaration, uses_t,
                                         statement(13, "Zd[i] = Xd[i];", {"Zd"}, {{"Xd", {at(0)}}}),
                                         statement(14, "Wd[i] = Zd[i];", {"Wd"}, {{"Zd", {at(0)}}})});
  ir::Diagnostics diags;
  const auto split = apply_splits(kernel, {{0, 2, "p.json"}}, {}, kDeclared, diags);
  ASSERT_TRUE(split.has_value()) << diags.items().front().message;
  const auto& steps = split->multi_tile->steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[0].body.find("const float t = Xd[i];\nYd[i] = t;"), std::string::npos) << steps[0].body;
  EXPECT_EQ(steps[1].output, "Zd");
  EXPECT_EQ(fields_of(steps[1].reads, true), (std::vector<std::string>{"Wd"}));
  EXPECT_EQ(steps[1].statements.size(), 2u); // still two writers: a later plan could split it
}

std::string refusal(const ir::Kernel& kernel, const std::vector<StepSplit>& splits,
                    const std::vector<StepFusion>& fusions = {}) {
  ir::Diagnostics diags;
  if (apply_splits(kernel, splits, fusions, kDeclared, diags))
    return "(accepted)";
  const auto& d = diags.items().front();
  return std::to_string(d.loc.line) + ": " + d.message;
}

TEST(SplitForalls, ALocalDeclaredInOnePartAndReadInAnotherIsRefusedAtItsUse) {
  auto declaration = statement(11, "const float t = Xd[i];", {}, {{"Xd", {at(0)}}});
  declaration.declares = {"t"};
  auto first = statement(12, "Yd[i] = t;", {"Yd"}, {});
  first.uses = {"t"};
  auto second = statement(13, "Zd[i] = t + 1;", {"Zd"}, {});
  second.uses = {"t"};
  EXPECT_EQ(refusal(kernel_with({declaration, first, second}), {{0, 2, "p.json"}}),
            "13: plan p.json splits step 0 into 2 parts but the statement at line 13 (part 1) reads 't', "
            "which the statement at line 11 declares in part 0 (each part is a forall of its own and "
            "sees only its own locals)");
}

TEST(SplitForalls, AReadAcrossTasksOfAFieldAnotherPartWritesIsRefused) {
  const ir::Kernel kernel = kernel_with({
      statement(11, "Yd[i] = Xd[i];", {"Yd"}, {{"Xd", {at(0)}}}),
      statement(12, "Zd[i] = Yd[i + 1];", {"Zd"}, {{"Yd", {at(1)}}}),
  });
  EXPECT_EQ(refusal(kernel, {{0, 2, "p.json"}}),
            "12: plan p.json splits step 0 into 2 parts but the statement at line 12 reads 'Yd' at another "
            "index than its own, and part 0 writes it (the parts would see each other's results across tasks)");
}

TEST(SplitForalls, AReturnBeforeALaterPartIsRefused) {
  auto guard = statement(11, "if (Xd[i] < 0) return;", {}, {{"Xd", {at(0)}}});
  guard.returns = true;
  const ir::Kernel kernel = kernel_with({guard, statement(12, "Yd[i] = Xd[i];", {"Yd"}, {{"Xd", {at(0)}}}),
                                         statement(13, "Zd[i] = Xd[i];", {"Zd"}, {{"Xd", {at(0)}}})});
  EXPECT_NE(refusal(kernel, {{0, 2, "p.json"}}).find("11: plan p.json splits step 0 into 2 parts but the "
                                                     "statement at line 11 may return"),
            std::string::npos);
}

TEST(SplitForalls, StepsAndPartsTheKernelDoesNotHaveAreRefused) {
  const ir::Kernel kernel = kernel_with({statement(11, "Yd[i] = Xd[i];", {"Yd"}, {{"Xd", {at(0)}}}),
                                         statement(12, "Zd[i] = Xd[i];", {"Zd"}, {{"Xd", {at(0)}}})});
  EXPECT_EQ(refusal(kernel, {{0, 3, "p.json"}}),
            "10: plan p.json splits step 0 but into 3 parts: its body has 2 statements that write a field, "
            "so at most 2 parts");
  EXPECT_EQ(refusal(kernel, {{1, 2, "p.json"}}), "2: plan p.json splits step 1 but the kernel has 1 steps");
  EXPECT_EQ(refusal(kernel, {{0, 2, "p.json"}, {0, 2, "p.json"}}), "2: p.json: step 0 is split twice");
  ir::Kernel one = kernel;
  one.multi_tile->steps[0].statements.resize(1);
  EXPECT_NE(refusal(one, {{0, 2, "p.json"}}).find("is not a forall whose body writes several agile fields"),
            std::string::npos);
}

// Step numbers are the kernel's as written: a fusion of steps before the split one renumbers it,
// and a split of a step the plan also fuses is refused.
TEST(SplitForalls, StepsAreNumberedAsWrittenAroundTheFusions) {
  ir::Kernel kernel = kernel_with({statement(11, "Yd[i] = Xd[i];", {"Yd"}, {{"Xd", {at(0)}}}),
                                   statement(12, "Zd[i] = Xd[i];", {"Zd"}, {{"Xd", {at(0)}}})});
  TileStep fused = kernel.multi_tile->steps[0];
  fused.statements.clear();
  fused.output = "Wd";
  kernel.multi_tile->steps.insert(kernel.multi_tile->steps.begin(), fused); // steps 0..1, fused
  ir::Diagnostics diags;
  const auto split = apply_splits(kernel, {{2, 2, "p.json"}}, {{0, 2, "p.json"}}, kDeclared, diags);
  ASSERT_TRUE(split.has_value()) << diags.items().front().message;
  ASSERT_EQ(split->multi_tile->steps.size(), 3u);
  EXPECT_EQ(split->multi_tile->steps[2].output, "Zd");
  EXPECT_EQ(refusal(kernel, {{1, 2, "p.json"}}, {{0, 2, "p.json"}}),
            "2: plan p.json splits step 1 but the plan also fuses it");
}

} // namespace
} // namespace s2p::pass_manager
