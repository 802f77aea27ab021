// Foralls as loop nests write them: reads over the range of a loop inside the body (a GEMM's
// k), fixed coordinates, and fields of another rank than the forall's (a vector read in a
// matrix kernel), run through the runtime as generated code does and compared with the
// sequential forall on every backend; the owner-copy plan moves exactly each tile's footprint.
#include <seq2par/runtime.h>

#include "backend_setting.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using s2p::index_map;

using s2p_test::Backend;

class LoopNestForall : public ::testing::TestWithParam<const char*> {
protected:
  void SetUp() override {
    if (std::string(GetParam()) == "sim" && !s2p::rt::has_fabric_simulator())
      GTEST_SKIP() << "built without the fabric simulator";
    backend_.emplace(GetParam());
  }
  std::optional<Backend> backend_;
};

std::vector<double> values(std::size_t n, int salt) {
  std::vector<double> v(n);
  for (std::size_t k = 0; k < n; ++k)
    v[k] = static_cast<double>(static_cast<int>((k * 7 + static_cast<std::size_t>(salt)) % 23) -
                               11) *
           0.25;
  return v;
}

// (i0, k) with k over [first, first + span) or the whole axis; (k, i1) likewise.
index_map<2> row_range(std::int64_t first, std::int64_t span) {
  return {{0, index_map<2>::loop_axis}, {0, first}, {0, span}};
}
index_map<2> column_range(std::int64_t first, std::int64_t span) {
  return {{index_map<2>::loop_axis, 1}, {first, 0}, {span, 0}};
}

constexpr std::int64_t kN = 24, kK = 20;

TEST_P(LoopNestForall, GemmReadsRowAndColumnBands) {
  auto a = values(kN * kK, 1), b = values(kK * kN, 2);
  std::vector<double> expected = values(kN * kN, 3), actual = expected;
  const auto map = s2p::resource_map<2>::block({kN, kN}, 4);
  const auto a_map = s2p::resource_map<2>::block({kN, kK}, 4);
  const auto b_map = s2p::resource_map<2>::block({kK, kN}, 4);
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {kN, kK}), a_map);
  const auto Bd = s2p::agile(s2p::field<2, double>(b.data(), {kK, kN}), b_map);
  const auto body = [](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
    Cd[i] *= 0.5;
    for (std::int64_t k = 0; k < kK; ++k)
      Cd[i] += Ad[{i[0], k}] * Bd[{k, i[1]}];
  };
  {
    const auto Cd = s2p::agile(s2p::field<2, double>(expected.data(), {kN, kN}), map);
    s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
      auto C = Cd;
      body(i, C, Ad, Bd);
    });
  }
  const auto Cd = s2p::agile(s2p::field<2, double>(actual.data(), {kN, kN}), map);
  const s2p::rt::tile_kernel_info info{"gemm", "test.cpp", 4};
  // A's k as a constant range, B's as the whole axis: both name every k.
  s2p::rt::forall(info, 4, Cd, "Cd", body, s2p::rt::reads(Ad, "Ad", {row_range(0, kK)}),
                  s2p::rt::reads(Bd, "Bd", {column_range(0, index_map<2>::whole_axis)}));
  EXPECT_EQ(expected, actual);
}

// y(i) = sum_j A(i, j) * x(j) + z(i): a rank-1 forall reading a rank-2 field, lifted to rank 2.
TEST_P(LoopNestForall, VectorKernelReadsMatrixRows) {
  auto a = values(kN * kK, 4), x = values(kK, 5), z = values(kN, 6);
  std::vector<double> expected(kN, -1.0), actual = expected;
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {kN, kK}),
                             s2p::resource_map<2>::block({kN, kK}, 3));
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {kK}),
                             s2p::resource_map<1>::cyclic({kK}, 3));
  const auto Zd = s2p::agile(s2p::field<1, double>(z.data(), {kN}),
                             s2p::resource_map<1>::block({kN}, 3));
  const auto map = s2p::resource_map<1>::block({kN}, 3);
  const auto body = [](s2p::index<1> i, auto& Yd, auto& Ad, auto& Xd, auto& Zd) {
    Yd[i] = Zd[i];
    for (std::int64_t j = 0; j < Xd.extent()[0]; ++j)
      Yd[i] += Ad[{i[0], j}] * Xd[{j}];
  };
  {
    const auto Yd = s2p::agile(s2p::field<1, double>(expected.data(), {kN}), map);
    s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
      auto Y = Yd;
      body(i, Y, Ad, Xd, Zd);
    });
  }
  const auto Yd = s2p::agile(s2p::field<1, double>(actual.data(), {kN}), map);
  const auto Yl = s2p::rt::lifted<2>(Yd);
  const auto Xl = s2p::rt::lifted<2>(Xd);
  const auto Zl = s2p::rt::lifted<2>(Zd);
  const s2p::rt::tile_kernel_info info{"matvec", "test.cpp", 3};
  // Lifted: i = (0, i0); A(i0, j) is (i[1], j); x(j) is (0, j); z(i0) is (0, i[1]).
  s2p::rt::forall(
      info, 3, Yl, "Yd", s2p::rt::ranked<1, 2, 1, 2, 1, 1>(body),
      s2p::rt::reads(Ad, "Ad", {index_map<2>{{1, index_map<2>::loop_axis}, {0, 0}, {0, kK}}}),
      s2p::rt::reads(Xl, "Xd",
                     {index_map<2>{{index_map<2>::loop_axis, index_map<2>::loop_axis},
                                   {0, 0},
                                   {1, index_map<2>::whole_axis}}}),
      s2p::rt::reads(Zl, "Zd", {index_map<2>{{index_map<2>::loop_axis, 1}, {0, 0}, {1, 0}}}));
  EXPECT_EQ(expected, actual);
}

// B(i, j) = A(i, j) * x(j) + A(0, j): a rank-2 forall reading a vector and a fixed row.
TEST_P(LoopNestForall, MatrixKernelReadsAVectorAndAFixedRow) {
  auto a = values(kN * kK, 7), x = values(kK, 8);
  std::vector<double> expected(kN * kK, -1.0), actual = expected;
  const auto map = s2p::resource_map<2>::block_block({kN, kK}, {6, 5}, 4);
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {kN, kK}), map);
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {kK}),
                             s2p::resource_map<1>::block({kK}, 4));
  const auto body = [](s2p::index<2> i, auto& Bd, auto& Ad, auto& Xd) {
    Bd[i] = Ad[i] * Xd[{i[1]}] + Ad[{0, i[1]}];
  };
  {
    const auto Bd = s2p::agile(s2p::field<2, double>(expected.data(), {kN, kK}), map);
    s2p::forall(Bd.extent(), [&](s2p::index<2> i) {
      auto B = Bd;
      body(i, B, Ad, Xd);
    });
  }
  const auto Bd = s2p::agile(s2p::field<2, double>(actual.data(), {kN, kK}), map);
  const auto Xl = s2p::rt::lifted<2>(Xd);
  const s2p::rt::tile_kernel_info info{"scale_rows", "test.cpp", 4};
  s2p::rt::forall(
      info, 4, Bd, "Bd", s2p::rt::ranked<2, 2, 2, 2, 1>(body),
      s2p::rt::reads(Ad, "Ad",
                     {index_map<2>::identity(),
                      index_map<2>{{index_map<2>::loop_axis, 1}, {0, 0}, {1, 0}}}),
      s2p::rt::reads(Xl, "Xd", {index_map<2>{{index_map<2>::loop_axis, 1}, {0, 0}, {1, 0}}}));
  EXPECT_EQ(expected, actual);
}

INSTANTIATE_TEST_SUITE_P(Backends, LoopNestForall,
                         ::testing::Values("sim", "threads", "threads_copies"));

// A tile reads A's rows it owns and B's columns over the whole k range: the plan moves B's
// rows other tiles own (every tile needs all of B) and nothing of A, the footprint minimum.
TEST(LoopNestPlan, GemmMovesTheFootprintMinimum) {
  const auto map = s2p::resource_map<2>::block({kN, kN}, 4);
  const auto a_map = s2p::resource_map<2>::block({kN, kK}, 4);
  const auto b_map = s2p::resource_map<2>::block({kK, kN}, 4);
  const std::vector<s2p::input_access<2>> inputs{
      {"A", &a_map, row_range(0, kK), 8},
      {"B", &b_map, column_range(0, index_map<2>::whole_axis), 8}};
  const s2p::owner_copy_plan plan = s2p::plan_owner_copy(map, inputs);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  // B: kK x kN doubles, each tile receives the three quarters it does not own.
  EXPECT_EQ(plan.bytes, 3 * kK * kN * 8);
  EXPECT_EQ(plan.bytes, s2p::minimum_block_bytes(map, inputs));
}

// Two reads of one field that need the same memory block on a tile need it once, in the plan
// and in the minimum it is checked against; a guard keeps the shifted reads inside the field.
TEST(LoopNestPlan, TwoReadsOfOneFieldNeedABlockOnce) {
  auto map = s2p::resource_map<1>::block_block({32}, {8}, 4);
  map.memory_blocks({4});
  index_map<1> plus2{{0}, {2}, {0}}, plus3{{0}, {3}, {0}};
  plus2.guard_upper = {30};
  plus3.guard_upper = {29};
  const std::vector<s2p::input_access<1>> inputs{{"X", &map, plus2, 8}, {"X", &map, plus3, 8}};
  const s2p::owner_copy_plan plan = s2p::plan_owner_copy(map, inputs);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  // Tiles 0, 1 and 2 each need the first memory block of the next tile's segment.
  EXPECT_EQ(plan.bytes, 3 * 4 * 8);
  EXPECT_EQ(s2p::minimum_block_bytes(map, inputs), plan.bytes);
}

// A window of the index (X[i - 1 + k], k in [0, 3), guarded off the ends): each tile gets its
// segment widened by one element either side, the minimum, and the image of a part is the
// part widened by the window.
TEST(LoopNestPlan, AWindowMovesTheNeighboursElementsOnly) {
  const auto map = s2p::resource_map<1>::block({32}, 4);
  index_map<1> window{{0}, {-1}, {3}};
  window.guard_lower = {1};
  window.guard_upper = {31};
  EXPECT_TRUE(window.has_ranges());
  const s2p::grid<1> part{{4}, {8}}; // size 4 from index 8
  const s2p::grid<1> image = window.apply(part, {32});
  EXPECT_EQ(image.offset[0], 7); // [8, 12) widened to [7, 13)
  EXPECT_EQ(image.size[0], 6);
  const std::vector<s2p::input_access<1>> inputs{{"X", &map, window, 8}};
  const s2p::owner_copy_plan plan = s2p::plan_owner_copy(map, inputs);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  // Tiles 1 and 2 need one element each side, tiles 0 and 3 one element on their inner side.
  EXPECT_EQ(plan.bytes, 6 * 8);
  EXPECT_EQ(s2p::minimum_block_bytes(map, inputs), plan.bytes);
}

// A triangle (L[i0, k], k in [0, i0]): the image of a band of rows is the columns up to its
// last row, a row whose range is empty reads nothing, and with L's rows dealt one at a time
// each tile is given the triangle's part of the rows it does not own, the minimum.
TEST(LoopNestPlan, ATriangleMovesTheRangesItsIndicesGive) {
  const index_map<2> triangle =
      row_range(0, index_map<2>::whole_axis).bounded_by_index({-1, -1}, {0, 0}, {-1, 0}, {0, 1});
  const s2p::grid<2> rows{{3, kN}, {5, 0}}; // rows 5, 6, 7
  const s2p::grid<2> image = triangle.apply(rows, {kN, kN});
  EXPECT_EQ(image.offset[0], 5);
  EXPECT_EQ(image.size[0], 3);
  EXPECT_EQ(image.offset[1], 0); // columns 0 .. 7
  EXPECT_EQ(image.size[1], 8);
  // Below the diagonal (k in [i0 + 1, i0)): empty, nothing read.
  const index_map<2> empty =
      row_range(0, index_map<2>::whole_axis).bounded_by_index({-1, 0}, {0, 1}, {-1, 0}, {0, 0});
  EXPECT_EQ(empty.apply({{1, kN}, {4, 0}}, {kN, kN}).total_extent(), 0);
  // y[i0] = sum over k <= i0 of L[i0, k] * x[k], x lifted to (0, k): x's block of 6 elements
  // per tile, so tile t needs x[0, 6t), which tiles below it own.
  const auto y_map = s2p::resource_map<2>::block({1, kN}, 4);
  const auto x_map = s2p::resource_map<2>::block({1, kN}, 4);
  const index_map<2> prefix =
      index_map<2>{{index_map<2>::loop_axis, index_map<2>::loop_axis}, {0, 0}, {1, kN}}
          .bounded_by_index({-1, -1}, {0, 0}, {-1, 1}, {0, 1});
  const std::vector<s2p::input_access<2>> inputs{{"x", &x_map, prefix, 8}};
  const s2p::owner_copy_plan plan = s2p::plan_owner_copy(y_map, inputs);
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  EXPECT_EQ(plan.bytes, (6 + 12 + 18) * 8); // the whole axis: 18 elements to each tile
  EXPECT_EQ(s2p::minimum_block_bytes(y_map, inputs), plan.bytes);
}

TEST(LoopNestPlan, ARangeOutsideTheFieldIsRefused) {
  const auto map = s2p::resource_map<2>::block({kN, kN}, 4);
  const auto a_map = s2p::resource_map<2>::block({kN, kK}, 4);
  const std::vector<s2p::input_access<2>> inputs{{"A", &a_map, row_range(1, kK), 8}};
  EXPECT_NE(s2p::plan_owner_copy(map, inputs).error.find("outside its extent"), std::string::npos);
}

// Lifting keeps every element's owner, for every dealing.
TEST(RankLifting, LiftedMapsKeepOwners) {
  auto cyclic_weighted = s2p::resource_map<1>::block_cyclic({30}, {3}, 4);
  cyclic_weighted.weights({2.0, 1.0, 1.0, 1.0});
  auto excluded = s2p::resource_map<1>::block({30}, 4);
  excluded.exclude_tiles({1});
  for (const auto& map : {s2p::resource_map<1>::block({30}, 4),
                          s2p::resource_map<1>::cyclic({30}, 4), cyclic_weighted, excluded}) {
    const s2p::resource_map<3> lifted = map.lifted<3>();
    EXPECT_EQ(lifted.parent(), (s2p::extent<3>{1, 1, 30}));
    for (std::int64_t k = 0; k < 30; ++k)
      EXPECT_EQ(lifted.tile_of({0, 0, k}), map.tile_of({k})) << "element " << k;
    EXPECT_EQ(lifted.memory_block()[2], map.memory_block()[0]);
  }
  const auto rows = s2p::resource_map<2>::block_block({8, 6}, {2, 3}, 3, s2p::axis::columns);
  const s2p::resource_map<3> lifted = rows.lifted<3>();
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(lifted.tile_of({0, i, j}), rows.tile_of({i, j}));
}

TEST(RankLifting, LiftedFieldsShareElements) {
  std::vector<int> data{1, 2, 3, 4, 5, 6};
  const s2p::field<2, int> f(data.data(), {2, 3});
  const s2p::field<3, int> g = f.lifted<3>();
  EXPECT_EQ(g.extent(), (s2p::extent<3>{1, 2, 3}));
  const s2p::index<3> at_g{0, 1, 2};
  const s2p::index<2> at_f{1, 2};
  EXPECT_EQ(&g[at_g], &f[at_f]);
  const s2p::index<2> i{4, 5};
  EXPECT_EQ((s2p::rt::drop_index<2, 3>(s2p::rt::lift_index<3, 2>(i))), i);
}

} // namespace
