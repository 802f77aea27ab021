// A multi-tile kernel's steps lowered to access relations (access/tile_step_relations.h) and
// the fusion check that reads them (pass_manager/fuse_foralls.h), on hand-built IR (no Clang).
#include "access/tile_step_relations.h"
#include "pass_manager/fuse_foralls.h"

#include "ir_builder.h"

#include <gtest/gtest.h>

namespace s2p::access {
namespace {

using ir::TileStep;

TileStep::IndexMap shifted(std::int64_t offset) {
  return {{0}, {offset}};
}

TileStep forall(unsigned line, std::string output, std::vector<TileStep::Read> reads) {
  return test::forall_step(line, std::move(output), std::move(reads));
}

// Yd, Zd, Xd on map "map" over parameters y, z, x; Ys a second view of y on map "shifted".
ir::MultiTile multi_tile(std::vector<TileStep> steps) {
  ir::MultiTile multi;
  multi.tiles = 4;
  multi.steps = std::move(steps);
  multi.distributed = {{"Xd", {"x", "map", s2p::sim::ElementType::kF32}},
                       {"Yd", {"y", "map", s2p::sim::ElementType::kF32}},
                       {"Ys", {"y", "shifted", s2p::sim::ElementType::kF32}},
                       {"Zd", {"z", "map", s2p::sim::ElementType::kF32}}};
  return multi;
}

TEST(TileStepRelations, AStepWritesItsOutputAtTheIndexAndReadsAtItsMapsByData) {
  ir::MultiTile multi = multi_tile({forall(7, "Zd", {{"Ys", {shifted(1), shifted(-2)}}})});
  multi.parameter_extents["z"] = {64};
  const StepRelations relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.statement.domain.dimensions, (std::vector<std::string>{"i0"}));
  ASSERT_EQ(relations.statement.accesses.size(), 3u);
  EXPECT_EQ(relations.statement.accesses[0].field, "z");
  EXPECT_EQ(relations.statement.accesses[0].kind, Access::Kind::Write);
  EXPECT_EQ(relations.statement.accesses[2].field, "y"); // the view's data, not its name
  EXPECT_EQ(relations.statement.accesses[2].index,
            (std::vector<AffineExpr>{AffineExpr::variable(0, -2)}));
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[2]).view, "Ys");
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[2]).index, "i-2");
  // Known extents make a box; reads at i+1 and i-2 of 8 indices touch [-2, 9).
  EXPECT_EQ(footprint(relations.statement, "y", Access::Kind::Read, {{0}, {8}}),
            (Box{{-2}, {9}}));
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());
}

TEST(TileStepRelations, AWindowOfTheIndexIsTheIndexPlusABodyLoop) {
  // Ys[{i[0] - 1 + k}] over k in [0, 3): i - 1 + k.
  ir::MultiTile multi = multi_tile({forall(7, "Zd", {{"Ys", {{{0}, {-1}, {3}}}}})});
  multi.parameter_extents["z"] = {64};
  const StepRelations relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.statement.domain.dimensions, (std::vector<std::string>{"i0", "k0"}));
  ASSERT_EQ(relations.statement.accesses.size(), 2u);
  EXPECT_EQ(relations.statement.accesses[1].index,
            (std::vector<AffineExpr>{AffineExpr::variable(0, -1) + AffineExpr::variable(1)}));
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "i-1+k");
  // Indices [0, 8) read [-1, 9): the block widened by the window on both sides.
  EXPECT_EQ(footprint(relations.statement, "y", Access::Kind::Read, {{0}, {8}}),
            (Box{{-1}, {9}}));
  // The same window on the output is a dependence between iterations.
  ir::MultiTile in_place = multi_tile({forall(8, "Yd", {{"Yd", {{{0}, {-1}, {3}}}}})});
  in_place.parameter_extents["y"] = {64};
  EXPECT_TRUE(carried_dependence(tile_step_relations(in_place, 0).statement).has_value());
}

TEST(TileStepRelations, UnknownExtentsAreParametersAndALoopAxisIsABodyLoop) {
  TileStep step = forall(9, "Zd", {{"Xd", {{{0, TileStep::kLoopAxis}, {0, 2}, {0, 4}}}}});
  step.rank = 2;
  const StepRelations relations = tile_step_relations(multi_tile({step}), 0);
  EXPECT_EQ(relations.statement.domain.parameters, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(relations.statement.domain.dimensions.size(), 3u); // i0, i1 and the loop's k0
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "(i0, k+2)");
  EXPECT_EQ(footprint(relations.statement, "x", Access::Kind::Read, {{1, 0}, {2, 1}},
                      {{"n0", 8}, {"n1", 8}}),
            (Box{{1, 2}, {2, 6}}));
}

// A read of a vector (rank 1) in a rank-2 forall over the whole of a loop the kernel bounds
// only when it runs, and a fixed row: the whole axis is [0, the field's extent), a parameter.
TEST(TileStepRelations, WholeAxesAreExtentParametersAndFixedCoordinatesConstants) {
  TileStep step = forall(11, "Zd", {{"Xd", {{{TileStep::kLoopAxis}, {0}, {TileStep::kWholeAxis}}}},
                                    {"Yd", {{{TileStep::kLoopAxis, 1}, {3, 0}, {1, 0}}}}});
  step.rank = 2;
  const StepRelations relations = tile_step_relations(multi_tile({step}), 0);
  EXPECT_EQ(relations.statement.domain.parameters,
            (std::vector<std::string>{"n0", "n1", "e_x_0"}));
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "k");
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[2]).index, "(3, i1)");
  const ParameterValues sizes{{"n0", 8}, {"n1", 8}, {"e_x_0", 5}};
  EXPECT_EQ(footprint(relations.statement, "x", Access::Kind::Read, {{1, 0}, {2, 1}}, sizes),
            (Box{{0}, {5}}));
  EXPECT_EQ(footprint(relations.statement, "y", Access::Kind::Read, {{1, 2}, {2, 6}}, sizes),
            (Box{{3, 2}, {4, 6}}));
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());
}

// Reads at (i0, k) and (k, i1), k a kernel value: row i0's and column i1's element at k.
std::pair<TileStep::IndexMap, TileStep::IndexMap> row_and_column_k(const TileStep::KernelSymbol& k) {
  TileStep::IndexMap row{{0, TileStep::kLoopAxis}, {0, 0}, {0, TileStep::kWholeAxis}};
  row.symbol = {std::nullopt, k};
  TileStep::IndexMap column{{TileStep::kLoopAxis, 1}, {0, 0}, {TileStep::kWholeAxis, 0}};
  column.symbol = {k, std::nullopt};
  return {row, column};
}

// lu's update step, for (k ...) forall: if (i[0] > k && i[1] > k) A[i] -= A(i0, k) * A(k, i1):
// the kernel's loop variable k is a parameter of any sign (not an extent), the reads' fixed
// coordinates and the write's guard use it, and the relations prove the iterations
// independent; with the write's guard widened to i[1] >= k, iteration (0, k) writes what
// (0, k + 1) reads.
TEST(TileStepRelations, KernelValuesAreSymbolsOfGuardsAndCoordinates) {
  const TileStep::KernelSymbol k{"k", "k", 0};
  const auto [row, column] = row_and_column_k(k);
  TileStep step = forall(12, "Yd", {{"Yd", {row, column}}});
  step.rank = 2;
  const auto above = [&](int axis, std::int64_t by) {
    return TileStep::IndexBound{axis, false, "(k) + 1", std::nullopt,
                                TileStep::KernelSymbol{"k", "k", by}};
  };
  step.output_write_guards = {{above(0, 1), above(1, 1)}};
  ir::MultiTile multi = multi_tile({step});
  StepRelations relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.statement.domain.parameters, (std::vector<std::string>{"n0", "n1", "k"}));
  EXPECT_EQ(relations.statement.domain.value_parameters, (std::vector<std::string>{"k"}));
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "(i0, k)");
  EXPECT_EQ(relations.statement.accesses[0].guard.size(), 2u);
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());

  multi.steps[0].output_write_guards = {{above(0, 1), above(1, 0)}};
  relations = tile_step_relations(multi, 0);
  const auto dependence = carried_dependence(relations.statement);
  ASSERT_TRUE(dependence.has_value());
  EXPECT_EQ(dependence->message,
            "iteration (1, 1) reads y(1, 0), which iteration (1, 0) writes (with k = 0, the "
            "forall's extent[0] = 2, the forall's extent[1] = 2)");
}

// Reads at (k, i1) for a body loop k over [lower, upper), bounds that are kernel values (trmm's
// `for (k = row + 1; k < m; ++k) ... Bd[{k, i[1]}]`).
TileStep::IndexMap rows_in(TileStep::RangeBound lower, TileStep::RangeBound upper) {
  TileStep::IndexMap rows{{TileStep::kLoopAxis, 1}, {0, 0}, {TileStep::kWholeAxis, 0}};
  rows.range = {TileStep::KernelRange{std::move(lower), std::move(upper)}, std::nullopt};
  return rows;
}

// A range bound that is the kernel value `name` plus `by`.
TileStep::RangeBound value_of(const std::string& name, std::int64_t by = 0) {
  TileStep::RangeBound bound{"(" + name + ") + " + std::to_string(by)};
  bound.symbol = TileStep::KernelSymbol{name, name, by};
  return bound;
}

// A forall that writes the rows above `row` (if (i[0] < row)) and reads rows [row, m) of its
// output in a body loop: independent exactly because the loop's range is read. A range that
// starts one row higher reads a row another iteration writes; the whole axis (the form without
// the range) does too.
TEST(TileStepRelations, ABodyLoopOverKernelValuesReadsItsRange) {
  const TileStep::KernelSymbol row{"row", "row", 0};
  const auto from = [&](std::int64_t by) { return rows_in(value_of("row", by), value_of("m")); };
  TileStep step = forall(14, "Yd", {{"Yd", {from(0)}}});
  step.rank = 2;
  step.output_write_guards = {{TileStep::IndexBound{0, true, "(row)", std::nullopt, row}}};
  ir::MultiTile multi = multi_tile({step});
  StepRelations relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "(k in [row, m), i1)");
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());

  multi.steps[0].reads = {{"Yd", {from(-1)}}};
  EXPECT_TRUE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());
  multi.steps[0].reads = {{"Yd", {{{TileStep::kLoopAxis, 1}, {0, 0}, {TileStep::kWholeAxis, 0}}}}};
  EXPECT_TRUE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());

  // Up to the field's extent (Yd.extent()[0]): the same rows. A bound the relations cannot read
  // (two kernel values, `row + count`) is left out: without its upper bound the read still
  // starts at `row`, away from the rows written; without its lower bound it reaches them.
  TileStep::RangeBound extent{"(Yd.extent()[0])"};
  extent.extent = TileStep::FieldExtent{"Yd", 0, 0};
  multi.steps[0].reads = {{"Yd", {rows_in(value_of("row"), extent)}}};
  relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index,
            "(k in [row, Yd.extent()[0]), i1)");
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());
  multi.steps[0].reads = {{"Yd", {rows_in(value_of("row"), {"(row + count)"})}}};
  EXPECT_FALSE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());
  multi.steps[0].reads = {{"Yd", {rows_in({"(row + count)"}, value_of("m"))}}};
  EXPECT_TRUE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());
}

// The range restricts its own access, not the statement: where it is empty (row + 1 == m, the
// last row) the body still writes its output and reads elsewhere. Its footprint is the range's
// rows of the columns read, within the field.
TEST(TileStepRelations, AnEmptyBodyLoopRangeLeavesTheOtherAccesses) {
  TileStep step = forall(15, "Yd", {{"Xd", {rows_in(value_of("row", 1), value_of("m"))}}});
  step.rank = 2;
  ir::MultiTile multi = multi_tile({step});
  multi.parameter_extents["y"] = {8, 6};
  const StepRelations relations = tile_step_relations(multi, 0);
  const ParameterValues last_row{{"row", 7}, {"m", 8}, {"e_x_0", 8}};
  EXPECT_EQ(footprint(relations.statement, "y", Access::Kind::Write, {{0, 0}, {8, 6}}, last_row),
            (Box{{0, 0}, {8, 6}}));
  EXPECT_EQ(footprint_size(relations.statement, "x", Access::Kind::Read, {{0, 0}, {8, 6}},
                           last_row),
            0);
  const ParameterValues third_row{{"row", 2}, {"m", 8}, {"e_x_0", 8}};
  EXPECT_EQ(footprint(relations.statement, "x", Access::Kind::Read, {{0, 1}, {8, 3}}, third_row),
            (Box{{3, 1}, {8, 3}}));
}

// A range bound that is coordinate `axis` of the index plus `by` (a triangle's `k < i[0]`).
TileStep::RangeBound index_plus(int axis, std::int64_t by = 0) {
  TileStep::RangeBound bound;
  bound.index = TileStep::IndexBound::IndexTerm{axis, by};
  return bound;
}

// A forall that reads column i1 of its own output at rows k < i0 - 4 and writes only rows
// 4 .. 7 (if (i[0] >= 4 && i[0] < 8)): the triangle keeps the reads in rows 0 .. 2, which no
// iteration writes. A range to i0 - 3 reaches row 3, still unwritten; to i0 + 1 the row it
// writes and those of other iterations (a dependence), as does the whole axis.
TEST(TileStepRelations, ARangeBoundedByTheIndexIsATriangle) {
  const std::vector<TileStep::IndexBound> rows_4_to_7{TileStep::IndexBound{0, false, "4", 4},
                                                      TileStep::IndexBound{0, true, "8", 8}};
  const auto from_top = [&](std::int64_t by) {
    TileStep::IndexMap map = rows_in(TileStep::RangeBound{"0", 0}, index_plus(0, by));
    map.guard = rows_4_to_7;
    return map;
  };
  TileStep step = forall(16, "Yd", {{"Yd", {from_top(-4)}}});
  step.rank = 2;
  step.output_write_guards = {rows_4_to_7};
  ir::MultiTile multi = multi_tile({step});
  StepRelations relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index, "(k in [0, i0-4), i1)");
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());
  multi.steps[0].reads = {{"Yd", {from_top(-3)}}};
  EXPECT_FALSE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());
  multi.steps[0].reads = {{"Yd", {from_top(1)}}};
  const auto dependence = carried_dependence(tile_step_relations(multi, 0).statement);
  ASSERT_TRUE(dependence.has_value());
  multi.steps[0].reads = {{"Yd", {{{TileStep::kLoopAxis, 1}, {0, 0}, {TileStep::kWholeAxis, 0}}}}};
  EXPECT_TRUE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());

  // A window of the index over kernel values, k in [i0 + row, i0 + row + 2): independent of
  // the rows written when `row` keeps it below them.
  TileStep::RangeBound window_start = value_of("row", 0), window_end = value_of("row", 2);
  window_start.index = TileStep::IndexBound::IndexTerm{0, -8};
  window_end.index = TileStep::IndexBound::IndexTerm{0, -8};
  TileStep::IndexMap window = rows_in(window_start, window_end);
  window.guard = rows_4_to_7;
  multi.steps[0].reads = {{"Yd", {window}}};
  relations = tile_step_relations(multi, 0);
  EXPECT_EQ(relations.origin_of(relations.statement.accesses[1]).index,
            "(k in [i0+row-8, i0+row+2-8), i1)");
  EXPECT_TRUE(carried_dependence(relations.statement).has_value()); // row unknown: may reach 4

  // The footprint of rows 5 and 6 of a triangle of x, k in [0, i0] (i0 + 1 exclusive): the
  // columns read are rows 0 .. 6 of x.
  multi.steps[0].reads = {{"Xd", {rows_in(TileStep::RangeBound{"0", 0}, index_plus(0, 1))}}};
  multi.parameter_extents["y"] = {8, 6};
  relations = tile_step_relations(multi, 0);
  EXPECT_EQ(footprint(relations.statement, "x", Access::Kind::Read, {{5, 0}, {7, 6}},
                      {{"e_x_0", 8}}),
            (Box{{0, 0}, {7, 6}}));
}

// floyd-warshall's step, if (i[0] != k && i[1] != k) P[i] = min(P[i], P(i0, k) + P(k, i1)): each
// `!=` splits the write on either side of k, and the row and column it reads are left out.
TEST(TileStepRelations, NotEqualGuardsSplitTheAccess) {
  const TileStep::KernelSymbol k{"k", "k", 0};
  const auto [row, column] = row_and_column_k(k);
  TileStep step = forall(13, "Yd", {{"Yd", {row, column}}});
  step.rank = 2;
  const auto other_than_k = [&](int axis) {
    TileStep::IndexBound b{axis, false, "(k)", std::nullopt, k};
    b.excluded = true;
    return b;
  };
  step.output_write_guards = {{other_than_k(0), other_than_k(1)}};
  ir::MultiTile multi = multi_tile({step});
  const StepRelations relations = tile_step_relations(multi, 0);
  ASSERT_EQ(relations.statement.accesses.size(), 6u); // 4 sides of the write, then 2 reads
  EXPECT_EQ(relations.statement.accesses[3].kind, Access::Kind::Write);
  EXPECT_FALSE(carried_dependence(relations.statement).has_value());

  multi.steps[0].output_write_guards = {{other_than_k(0)}}; // column k is written
  EXPECT_TRUE(carried_dependence(tile_step_relations(multi, 0).statement).has_value());
}

// Fusion reads the relations: a later step's read of what an earlier step writes, through
// another view of the same data at a neighbour's index, is refused with the iterations that
// conflict; the same read at the task's own index is fused.
TEST(TileStepRelations, FusionIsRefusedAtADependenceAcrossIndexPoints) {
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.multi_tile = multi_tile({forall(7, "Yd", {{"Xd", {shifted(0)}}}),
                                  forall(8, "Zd", {{"Ys", {shifted(1)}}, {"Xd", {shifted(0)}}})});
  ir::Diagnostics diags;
  EXPECT_FALSE(pass_manager::apply_fusions(kernel, {{0, 2, "p.json"}}, {"k.cpp", 1, 1}, diags));
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].loc.line, 8u);
  EXPECT_EQ(diags.items()[0].message,
            "plan p.json fuses steps 0..1 but step 1 reads element i+1 of 'Ys', which step 0 "
            "writes (a fused task reads the fields the fused steps write only at its own index; "
            "iteration (i0) reads y(i0 + 1), which iteration (i0 + 1) writes)");

  kernel.multi_tile->steps[1].reads[0].maps = {shifted(0)};
  ir::Diagnostics fine;
  const auto fused = pass_manager::apply_fusions(kernel, {{0, 2, "p.json"}}, {"k.cpp", 1, 1}, fine);
  ASSERT_TRUE(fused) << (fine.items().empty() ? "" : fine.items()[0].message);
  EXPECT_EQ(fused->multi_tile->steps.size(), 1u);
}

// An earlier step reading what a later one overwrites at another index is refused too (the
// later step's task would overwrite it before a neighbour's earlier step read it).
TEST(TileStepRelations, FusionIsRefusedWhenALaterStepOverwritesWhatAnEarlierOneReads) {
  ir::Kernel kernel;
  kernel.name = "k";
  kernel.multi_tile = multi_tile({forall(7, "Yd", {{"Zd", {shifted(-1)}}}),
                                  forall(8, "Zd", {{"Xd", {shifted(0)}}})});
  ir::Diagnostics diags;
  EXPECT_FALSE(pass_manager::apply_fusions(kernel, {{0, 2, "p.json"}}, {"k.cpp", 1, 1}, diags));
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_NE(diags.items()[0].message.find("step 0 reads element i-1 of 'Zd', which step 1 writes"),
            std::string::npos)
      << diags.items()[0].message;
}

} // namespace
} // namespace s2p::access
