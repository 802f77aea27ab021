// Exact access relations (transpiler/access): footprints, carried dependences, fusion
// conflicts, parameters and dumps, on hand-built statements.

#include "access/access_relations.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace s2p::access {

// So that failing expectations print boxes.
void PrintTo(const Box& box, std::ostream* out) {
  *out << "[";
  for (std::size_t d = 0; d < box.lower.size(); ++d)
    *out << (d ? ", " : "") << box.lower[d] << ".." << box.upper[d];
  *out << ")";
}

namespace {

AffineExpr v(std::size_t d, std::int64_t offset = 0) {
  return AffineExpr::variable(d, offset);
}
AffineExpr n(std::size_t p, std::int64_t offset = 0) {
  return AffineExpr::parameter(p, offset);
}
AffineExpr c(std::int64_t value) {
  return AffineExpr::value(value);
}

// The dependence's message, "none" without one: failures show what was found.
std::string describe(const std::optional<Dependence>& d) {
  return d ? d->message : "none";
}

Statement statement(std::string name, Domain domain, std::vector<Access> accesses) {
  return {std::move(name), std::move(domain), std::move(accesses)};
}

// A 1-d forall over [0, N) with N symbolic.
Domain over_n() {
  return Domain::box({c(0)}, {n(0)}, {"N"});
}

// gemm: C[i0][i1] += A[i0][k] * B[k][i1], k in [0, 64).
Statement gemm() {
  Domain d = Domain::box({0, 0}, {32, 16});
  d.add_loop("k", c(0), c(64));
  return statement("S0", d,
                   {Access::read("C", {v(0), v(1)}), Access::read("A", {v(0), v(2)}),
                    Access::read("B", {v(2), v(1)}), Access::write("C", {v(0), v(1)})});
}

// ---- footprints ----------------------------------------------------------------------------

TEST(AccessFootprint, IdentityShiftedAndTransposedAreBoxes) {
  const Statement s =
      statement("S0", Domain::box({0, 0}, {96, 96}),
                {Access::read("A", {v(0), v(1)}), Access::read("B", {v(0, 1), v(1, -2)}),
                 Access::read("T", {v(1), v(0)}), Access::write("C", {v(0), v(1)})});
  const Box block{{8, 0}, {16, 32}};
  EXPECT_EQ(footprint(s, "A", Access::Kind::Read, block), (Box{{8, 0}, {16, 32}}));
  EXPECT_EQ(footprint(s, "B", Access::Kind::Read, block), (Box{{9, -2}, {17, 30}}));
  EXPECT_EQ(footprint(s, "T", Access::Kind::Read, block), (Box{{0, 8}, {32, 16}}));
  EXPECT_EQ(footprint(s, "C", Access::Kind::Write, block), (Box{{8, 0}, {16, 32}}));
  EXPECT_EQ(footprint_boxes(s, "T", Access::Kind::Read, block),
            (std::vector<Box>{Box{{0, 8}, {32, 16}}}));
  EXPECT_EQ(footprint_size(s, "B", Access::Kind::Read, block), 8 * 32);
  // Nothing of C is read: an empty box of C's rank.
  EXPECT_EQ(footprint(s, "C", Access::Kind::Read, block), (Box{{0, 0}, {0, 0}}));
  EXPECT_EQ(footprint_size(s, "C", Access::Kind::Read, block), 0);
}

TEST(AccessFootprint, BodyLoopVariablesSpanTheirRange) {
  const Statement s = gemm();
  const Box block{{4, 8}, {8, 16}};
  EXPECT_EQ(footprint(s, "A", Access::Kind::Read, block), (Box{{4, 0}, {8, 64}}));
  EXPECT_EQ(footprint(s, "B", Access::Kind::Read, block), (Box{{0, 8}, {64, 16}}));
  EXPECT_EQ(footprint(s, "C", Access::Kind::Write, block), (Box{{4, 8}, {8, 16}}));
  EXPECT_EQ(footprint_size(s, "A", Access::Kind::Read, block), 4 * 64);
}

TEST(AccessFootprint, AGuardShrinksTheFootprint) {
  // if (i0 > 0 && i0 < 9) read A[i0 - 1], over i0 in [0, 10).
  const std::vector<Constraint> inside{Constraint::non_negative(v(0, -1)),
                                       Constraint::non_negative(c(8) - v(0))};
  const Statement guarded =
      statement("S0", Domain::box({0}, {10}), {Access::read("A", {v(0, -1)}, inside)});
  const Statement unguarded =
      statement("S0", Domain::box({0}, {10}), {Access::read("A", {v(0, -1)})});
  EXPECT_EQ(footprint(guarded, "A", Access::Kind::Read, Box{{0}, {10}}), (Box{{0}, {8}}));
  EXPECT_EQ(footprint(unguarded, "A", Access::Kind::Read, Box{{0}, {10}}), (Box{{-1}, {9}}));
  // The block's boundary point reads nothing under the guard.
  EXPECT_EQ(footprint_size(guarded, "A", Access::Kind::Read, Box{{0}, {1}}), 0);
}

TEST(AccessFootprint, ADiagonalIsNoUnionOfBoxesButIsCounted) {
  const Statement s = statement("S0", Domain::box({0}, {8}), {Access::read("A", {v(0), v(0)})});
  const Box block{{0}, {8}};
  EXPECT_EQ(footprint(s, "A", Access::Kind::Read, block), (Box{{0, 0}, {8, 8}}));
  EXPECT_EQ(footprint_boxes(s, "A", Access::Kind::Read, block), std::nullopt);
  EXPECT_EQ(footprint_size(s, "A", Access::Kind::Read, block), 8);
}

TEST(AccessFootprint, AStrideIsNoUnionOfBoxesButIsCounted) {
  const Statement s = statement("S0", Domain::box({0}, {8}), {Access::read("A", {2 * v(0)})});
  EXPECT_EQ(footprint(s, "A", Access::Kind::Read, Box{{0}, {4}}), (Box{{0}, {7}}));
  EXPECT_EQ(footprint_boxes(s, "A", Access::Kind::Read, Box{{0}, {4}}), std::nullopt);
  EXPECT_EQ(footprint_size(s, "A", Access::Kind::Read, Box{{0}, {4}}), 4);
}

TEST(AccessFootprint, SeveralAccessesGiveDisjointBoxes) {
  const Statement apart = statement("S0", Domain::box({0}, {8}),
                                    {Access::read("A", {v(0)}), Access::read("A", {v(0, 10)})});
  EXPECT_EQ(footprint_boxes(apart, "A", Access::Kind::Read, Box{{0}, {4}}),
            (std::vector<Box>{Box{{0}, {4}}, Box{{10}, {14}}}));
  EXPECT_EQ(footprint_size(apart, "A", Access::Kind::Read, Box{{0}, {4}}), 8);
  // Overlapping reads (a 3-point stencil) count each element once.
  const Statement stencil = statement(
      "S0", Domain::box({0}, {8}),
      {Access::read("A", {v(0, -1)}), Access::read("A", {v(0)}), Access::read("A", {v(0, 1)})});
  EXPECT_EQ(footprint_boxes(stencil, "A", Access::Kind::Read, Box{{2}, {6}}),
            (std::vector<Box>{Box{{1}, {7}}}));
  EXPECT_EQ(footprint_size(stencil, "A", Access::Kind::Read, Box{{2}, {6}}), 6);
}

TEST(AccessFootprint, ParametersNeedValues) {
  const Statement s = statement("S0", over_n(), {Access::read("A", {v(0)})});
  EXPECT_THROW(footprint(s, "A", Access::Kind::Read, Box{{0}, {100}}), std::invalid_argument);
  // The block is cut by the domain 0 <= i0 < N.
  EXPECT_EQ(footprint(s, "A", Access::Kind::Read, Box{{0}, {100}}, {{"N", 10}}), (Box{{0}, {10}}));
}

TEST(AccessFootprint, MisuseThrows) {
  const Statement s = statement("S0", Domain::box({0}, {8}), {Access::read("A", {v(0)})});
  EXPECT_THROW(footprint(s, "A", Access::Kind::Read, Box{{0, 0}, {1, 1}}), std::invalid_argument);
  const Statement bad = statement("S0", Domain::box({0}, {8}), {Access::read("A", {v(3)})});
  EXPECT_THROW(carried_dependence(bad), std::invalid_argument);
  const Statement ranks = statement("S0", Domain::box({0}, {8}),
                                    {Access::read("A", {v(0)}), Access::read("A", {v(0), v(0)})});
  EXPECT_THROW(footprint(ranks, "A", Access::Kind::Read, Box{{0}, {8}}), std::invalid_argument);
}

// ---- carried dependences -------------------------------------------------------------------

TEST(CarriedDependence, ElementwiseIsParallel) {
  const Statement s =
      statement("S0", Domain::box({0}, {64}),
                {Access::read("A", {v(0)}), Access::read("B", {v(0)}), Access::write("C", {v(0)})});
  EXPECT_EQ(describe(carried_dependence(s)), "none");
}

TEST(CarriedDependence, ARecurrenceIsFoundWithItsDistance) {
  // A[i0][i1] = A[i0][i1 - 1] + 1
  const Statement s = statement(
      "S0", Domain::box({0, 0}, {4, 5}),
      {Access::read("A", {v(0), v(1, -1)}, {}, "k.cpp:3:20"), Access::write("A", {v(0), v(1)})});
  const auto d = carried_dependence(s);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->sink.kind, Access::Kind::Read);
  EXPECT_EQ(d->sink.where, "k.cpp:3:20");
  EXPECT_EQ(d->source.kind, Access::Kind::Write);
  EXPECT_EQ(d->distance, (std::vector<std::int64_t>{0, -1}));
  EXPECT_TRUE(d->uniform);
  EXPECT_EQ(d->sink_iteration, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(d->source_iteration, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(d->element, (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(d->message,
            "iteration (i0, i1) reads A(i0, i1 - 1), which iteration (i0, i1 - 1) writes");
  EXPECT_NE(d->relation.find("S0[i0, i1] -> S0[i0' = i0, i1' = -1 + i1]"), std::string::npos)
      << d->relation;
}

TEST(CarriedDependence, WriteBeforeReadInTheListIsFoundToo) {
  const Statement s = statement("S0", Domain::box({0}, {8}),
                                {Access::write("A", {v(0)}), Access::read("A", {v(0, 1)})});
  const auto d = carried_dependence(s);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->distance, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(d->message, "iteration (i0) reads A(i0 + 1), which iteration (i0 + 1) writes");
}

TEST(CarriedDependence, DisjointElementsAreParallel) {
  // A[2*i0] = A[2*i0 + 1]: even elements written, odd ones read.
  const Statement s =
      statement("S0", Domain::box({0}, {16}),
                {Access::read("A", {2 * v(0) + 1}), Access::write("A", {2 * v(0)})});
  EXPECT_EQ(describe(carried_dependence(s)), "none");
}

TEST(CarriedDependence, GuardsCanMakeAccessesIndependent) {
  // if (i0 < 5) A[i0] = ...; if (i0 >= 5) ... = A[i0 + 5]: written [0, 5), read [10, 21).
  const Statement guarded =
      statement("S0", Domain::box({0}, {16}),
                {Access::write("A", {v(0)}, {Constraint::non_negative(c(4) - v(0))}),
                 Access::read("A", {v(0, 5)}, {Constraint::non_negative(v(0, -5))})});
  EXPECT_EQ(describe(carried_dependence(guarded)), "none");
  Statement unguarded = guarded;
  unguarded.accesses[0].guard.clear(); // now written [0, 16)
  const auto d = carried_dependence(unguarded);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->sink_iteration, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(d->source_iteration, (std::vector<std::int64_t>{10}));
  EXPECT_EQ(d->element, (std::vector<std::int64_t>{10}));
}

TEST(CarriedDependence, BodyLoopsStayInsideTheirIndexPoint) {
  // C[i0][i1] += A[i0][k] * B[k][i1]: every point reads and writes only its own C element.
  EXPECT_EQ(describe(carried_dependence(gemm())), "none");
  // sum[0] += A[i0][k]: every point writes the same element.
  Domain d = Domain::box({0}, {8});
  d.add_loop("k", c(0), c(4));
  const Statement reduce = statement(
      "S0", d,
      {Access::read("sum", {c(0)}), Access::read("A", {v(0), v(1)}), Access::write("sum", {c(0)})});
  const auto dep = carried_dependence(reduce);
  ASSERT_TRUE(dep.has_value());
  EXPECT_FALSE(dep->uniform);
  EXPECT_EQ(dep->message, "iteration (0) reads sum(0), which iteration (1) writes");
}

TEST(CarriedDependence, TwoWritesOfOneElementConflict) {
  const Statement s = statement("S0", Domain::box({0}, {4}), {Access::write("A", {c(0)})});
  const auto d = carried_dependence(s);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->message, "iteration (0) writes A(0), which iteration (1) also writes");
}

TEST(CarriedDependence, HoldsForAllParameterValues) {
  const Statement parallel =
      statement("S0", over_n(), {Access::read("A", {v(0)}), Access::write("C", {v(0)})});
  EXPECT_EQ(describe(carried_dependence(parallel)), "none");

  const Statement recurrence =
      statement("S0", over_n(), {Access::read("A", {v(0, -1)}), Access::write("A", {v(0)})});
  const auto d = carried_dependence(recurrence);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->uniform);
  EXPECT_EQ(d->parameters, (std::map<std::string, std::int64_t>{{"N", 2}}));
  EXPECT_EQ(d->message, "iteration (i0) reads A(i0 - 1), which iteration (i0 - 1) writes");

  // A read under `if (N <= 0)` never happens: parameters are extents, at least 1.
  Domain extents = Domain::box({0}, {8});
  extents.parameters = {"N"};
  const Statement never =
      statement("S0", extents,
                {Access::write("A", {v(0)}),
                 Access::read("A", {v(0, 1)}, {Constraint::non_negative(c(0) - n(0))})});
  EXPECT_EQ(describe(carried_dependence(never)), "none");

  // A[i0] = A[N - 1 - i0]: only points mirrored around the middle conflict.
  const Statement reversal =
      statement("S0", over_n(), {Access::read("A", {n(0, -1) - v(0)}), Access::write("A", {v(0)})});
  const auto r = carried_dependence(reversal);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->uniform);
  EXPECT_EQ(r->message, "iteration (0) reads A(1), which iteration (1) writes (with N = 2)");
}

// ---- fusion --------------------------------------------------------------------------------

TEST(FusionConflict, ReadingTheEarlierOutputAtTheSamePointIsLegal) {
  const Statement earlier = statement("S0", Domain::box({0}, {64}),
                                      {Access::read("A", {v(0)}), Access::write("B", {v(0)})});
  const Statement later = statement("S1", Domain::box({0}, {64}),
                                    {Access::read("B", {v(0)}), Access::write("C", {v(0)})});
  EXPECT_EQ(describe(fusion_conflict(earlier, later)), "none");
}

TEST(FusionConflict, ReadingTheEarlierOutputOfAnotherPointIsIllegal) {
  const Statement earlier = statement("S0", Domain::box({0}, {64}),
                                      {Access::read("A", {v(0)}), Access::write("B", {v(0)})});
  const Statement later = statement("S1", Domain::box({0}, {64}),
                                    {Access::read("B", {v(0, -1)}), Access::write("C", {v(0)})});
  const auto d = fusion_conflict(earlier, later);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->sink_statement, "S1");
  EXPECT_EQ(d->source_statement, "S0");
  EXPECT_EQ(d->sink.field, "B");
  EXPECT_EQ(d->distance, (std::vector<std::int64_t>{-1}));
  EXPECT_EQ(d->message,
            "iteration (i0) of S1 reads B(i0 - 1), which iteration (i0 - 1) of S0 writes");
}

TEST(FusionConflict, OverwritingWhatTheEarlierReadsElsewhereIsIllegal) {
  const Statement earlier = statement("S0", Domain::box({0}, {64}),
                                      {Access::read("A", {v(0, 1)}), Access::write("B", {v(0)})});
  const Statement later = statement("S1", Domain::box({0}, {64}), {Access::write("A", {v(0)})});
  const auto d = fusion_conflict(earlier, later);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->message, "iteration (i0) of S1 writes A(i0), which iteration (i0 - 1) of S0 reads");
  // The same anti-dependence at one point is fine: each point reads before it writes.
  const Statement same_point = statement("S0", Domain::box({0}, {64}), {Access::read("A", {v(0)})});
  EXPECT_EQ(describe(fusion_conflict(same_point, later)), "none");
}

TEST(FusionConflict, WorksWithParameters) {
  const Statement earlier = statement("S0", over_n(), {Access::write("B", {v(0)})});
  const Statement legal = statement("S1", over_n(), {Access::read("B", {v(0)})});
  const Statement illegal = statement("S1", over_n(), {Access::read("B", {v(0, 1)})});
  EXPECT_EQ(describe(fusion_conflict(earlier, legal)), "none");
  const auto d = fusion_conflict(earlier, illegal);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->parameters, (std::map<std::string, std::int64_t>{{"N", 2}}));
  EXPECT_EQ(d->distance, (std::vector<std::int64_t>{1}));
}

TEST(FusionConflict, DifferentIndexRanksAreAMisuse) {
  const Statement one = statement("S0", Domain::box({0}, {8}), {Access::write("B", {v(0)})});
  const Statement two = statement("S1", Domain::box({0, 0}, {8, 8}), {Access::read("B", {v(0)})});
  EXPECT_THROW(fusion_conflict(one, two), std::invalid_argument);
}

// ---- dumps ---------------------------------------------------------------------------------

Statement recurrence_over_n() {
  return statement("S0", Domain::box({c(0), c(0)}, {n(0), c(96)}, {"N"}),
                   {Access::read("A", {v(0), v(1, -1)}, {}, "k.cpp:3:20"),
                    Access::write("A", {v(0), v(1)}, {}, "k.cpp:3:5")});
}

TEST(AccessDumps, IslTextUsesTheUsersNames) {
  const IslText text = to_isl_text(recurrence_over_n());
  // N > 0: answers are for parameter values >= 1.
  EXPECT_EQ(text.domain, "[N] -> { S0[i0, i1] : N > 0 and 0 <= i0 < N and 0 <= i1 <= 95 }");
  ASSERT_EQ(text.accesses.size(), 2u);
  EXPECT_EQ(text.accesses[0],
            "[N] -> { S0[i0, i1] -> A[i0, -1 + i1] : 0 <= i0 < N and 0 <= i1 <= 95 }");
  EXPECT_EQ(to_isl_string(recurrence_over_n()),
            text.domain + "\n" + text.accesses[0] + "\n" + text.accesses[1] + "\n");
}

TEST(AccessDumps, JsonHasOneEntryPerAccess) {
  const nlohmann::json j = to_json(recurrence_over_n());
  EXPECT_EQ(j.at("statement"), "S0");
  EXPECT_EQ(j.at("domain"), to_isl_text(recurrence_over_n()).domain);
  ASSERT_EQ(j.at("accesses").size(), 2u);
  EXPECT_EQ(j.at("accesses")[0].at("field"), "A");
  EXPECT_EQ(j.at("accesses")[0].at("kind"), "read");
  EXPECT_EQ(j.at("accesses")[1].at("kind"), "write");
  EXPECT_EQ(j.at("accesses")[1].at("where"), "k.cpp:3:5");
  EXPECT_NE(j.at("accesses")[0].at("relation").get<std::string>().find("A[i0, -1 + i1]"),
            std::string::npos);
}

TEST(AccessDumps, DotHasANodePerStatementAndFieldAndAnEdgePerAccess) {
  const Statement later =
      statement("S1", Domain::box({c(0), c(0)}, {n(0), c(96)}, {"N"}),
                {Access::read("A", {v(0), v(1)}), Access::write("C", {v(0), v(1)})});
  const std::string dot = to_dot({recurrence_over_n(), later});
  EXPECT_EQ(dot.rfind("digraph access_relations {\n", 0), 0u);
  EXPECT_NE(dot.find("\"statement:S0\" [label=\"S0\", shape=box];"), std::string::npos);
  EXPECT_NE(dot.find("\"statement:S1\" [label=\"S1\", shape=box];"), std::string::npos);
  EXPECT_NE(dot.find("\"field:A\" [label=\"A\", shape=ellipse];"), std::string::npos);
  EXPECT_NE(dot.find("\"field:C\" [label=\"C\", shape=ellipse];"), std::string::npos);
  EXPECT_NE(
      dot.find("\"field:A\" -> \"statement:S0\" [label=\"[N] -> { S0[i0, i1] -> A[i0, -1 + i1]"),
      std::string::npos)
      << dot;
  EXPECT_NE(dot.find("\"statement:S1\" -> \"field:C\""), std::string::npos);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

TEST(AccessFormat, AffineExpressionsReadLikeCode) {
  Domain d = Domain::box({c(0)}, {n(0)}, {"N"});
  d.add_loop("k", c(0), c(4));
  EXPECT_EQ(format_affine(2 * v(0) - v(1) + n(0) - 1, d), "2*i0 - k + N - 1");
  EXPECT_EQ(format_affine(c(0) - v(0), d), "-i0");
  EXPECT_EQ(format_affine(c(7), d), "7");
}

} // namespace
} // namespace s2p::access
