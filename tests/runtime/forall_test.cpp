// forall over agile fields with owner-copy, run through the runtime as generated code does:
// results against the sequential forall, on both backends, plus the moves' report.
#include <seq2par/runtime.h>

#include "backend_setting.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using s2p_test::Backend;

// The distribution example's 6144^2 structure scaled by 1/64: 96^2 doubles, 32^2 segments on 4 tiles
// block-cyclically, 32x16 memory blocks, 16^2 algorithmic blocks.
s2p::resource_map<2> map96() {
  return s2p::resource_map<2>::block_cyclic({96, 96}, {32, 32}, 4)
      .memory_blocks({32, 16})
      .algorithmic_blocks({16, 16});
}

void skip_without_fabric(const char* backend) {
  if (std::string(backend) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
}

// Each test runs on the backend it is instantiated with (skipped where it is not built).
class Forall : public ::testing::TestWithParam<const char*> {
protected:
  void SetUp() override {
    skip_without_fabric(GetParam());
    if (!IsSkipped())
      backend_.emplace(GetParam());
  }
  std::optional<Backend> backend_;
};

// C = A + B^T on map96(): the inputs, and the sequential and the parallel output.
struct TransposeFields {
  TransposeFields() {
    for (std::size_t k = 0; k < a.size(); ++k) {
      a[k] = static_cast<double>(k % 101) * 0.5;
      b[k] = static_cast<double>((k * 7) % 89) - 40.0;
    }
  }
  std::vector<double> a = std::vector<double>(96 * 96), b = std::vector<double>(96 * 96);
  std::vector<double> expected = std::vector<double>(96 * 96, -1.0), actual = expected;
  const s2p::resource_map<2> map = map96();
  const s2p::field<2, double> A{a.data(), {96, 96}}, B{b.data(), {96, 96}};
};

TEST_P(Forall, AddTransposeMatchesTheSequentialForall) {
  TransposeFields f;
  {
    const auto Cd = s2p::agile(s2p::field<2, double>(f.expected.data(), {96, 96}), f.map);
    const auto Ad = s2p::agile(f.A, f.map), Bd = s2p::agile(f.B, f.map);
    s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i] + Bd[{i[1], i[0]}]; });
  }
  const auto Cd = s2p::agile(s2p::field<2, double>(f.actual.data(), {96, 96}), f.map);
  const auto Ad = s2p::agile(f.A, f.map), Bd = s2p::agile(f.B, f.map);
  const s2p::rt::tile_kernel_info info{"add_transpose", "test.cpp", 4};
  s2p::rt::forall(
      info, 4, Cd, "Cd",
      [&](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
        Cd[i] = Ad[i] + Bd[{i[1], i[0]}];
      },
      s2p::rt::reads(Ad, "Ad", {s2p::index_map<2>::identity()}),
      s2p::rt::reads(Bd, "Bd", {s2p::index_map<2>::transpose()}));
  EXPECT_EQ(f.expected, f.actual);
}

TEST_P(Forall, WeightedBlockCyclicElementwiseOnOneDimension) {
  std::vector<float> x(1000), y(1000), expected(1000), actual(1000);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k) * 0.25f, y[k] = static_cast<float>(k % 7);
  const auto map = s2p::resource_map<1>::block_block({1000}, {50}, 3).weights({2.0, 1.0, 1.0});
  const s2p::field<1, float> X(x.data(), {1000}), Y(y.data(), {1000});
  for (auto* out : {&expected, &actual}) {
    const auto Zd = s2p::agile(s2p::field<1, float>(out->data(), {1000}), map);
    const auto Xd = s2p::agile(X, map), Yd = s2p::agile(Y, map);
    if (out == &expected) {
      s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] * 2.0f + Yd[i]; });
    } else {
      const s2p::rt::tile_kernel_info info{"axpy", "test.cpp", 3};
      s2p::rt::forall(
          info, 3, Zd, "Zd",
          [](s2p::index<1> i, auto& Zd, auto& Xd, auto& Yd) { Zd[i] = Xd[i] * 2.0f + Yd[i]; },
          s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>::identity()}),
          s2p::rt::reads(Yd, "Yd", {s2p::index_map<1>::identity()}));
    }
  }
  EXPECT_EQ(expected, actual);
}

// Local-global view (block by block): C = A + B^T block by block, the transposed B
// block read at transposed local indices.
TEST_P(Forall, LocalGlobalViewMatchesTheSequentialBlocks) {
  TransposeFields f;
  const auto Ad = s2p::agile(f.A, f.map), Bd = s2p::agile(f.B, f.map);
  const auto At = s2p::tiles(Ad), Bt = s2p::tiles(Bd);
  {
    const auto Cd = s2p::agile(s2p::field<2, double>(f.expected.data(), {96, 96}), f.map);
    const auto Ct = s2p::tiles(Cd);
    s2p::forall(Ct.blocks(), [&](s2p::index<2> blk) {
      const auto c = Ct(blk);
      const s2p::field<2, const double> a_block = At(blk);
      const auto bt = Bt({blk[1], blk[0]});
      s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a_block[j] + bt[{j[1], j[0]}]; });
    });
  }
  const auto Cd = s2p::agile(s2p::field<2, double>(f.actual.data(), {96, 96}), f.map);
  const auto Ct = s2p::tiles(Cd);
  const s2p::rt::tile_kernel_info info{"add_transpose_tiles", "test.cpp", 4};
  s2p::rt::forall_tiles(
      info, 4, Ct, "Ct",
      [&](s2p::index<2> blk, auto& Ct, auto& At, auto& Bt) {
        // Input blocks are read-only on a tile: each view gets its own declaration.
        const auto c = Ct(blk);
        const s2p::field<2, const double> a_block = At(blk);
        const auto bt = Bt({blk[1], blk[0]});
        s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a_block[j] + bt[{j[1], j[0]}]; });
      },
      s2p::rt::tile_reads(At, "At", {s2p::index_map<2>::identity()}),
      s2p::rt::tile_reads(Bt, "Bt", {s2p::index_map<2>::transpose()}));
  EXPECT_EQ(f.expected, f.actual);
}

// C = A + 1 where C and A are views of one 8x16 buffer (their grids `c` and `a`, A read
// transposed if asked), sequentially and through the runtime: the buffers must match.
void forall_within_one_buffer(s2p::grid<2> c, s2p::grid<2> a, bool transposed) {
  std::vector<double> expected(8 * 16);
  for (std::size_t k = 0; k < expected.size(); ++k)
    expected[k] = static_cast<double>((k * 13) % 29);
  std::vector<double> actual = expected;
  for (auto* buffer : {&expected, &actual}) {
    const s2p::field<2, double> whole(buffer->data(), {8, 16});
    const auto C = whole.section(c);
    const auto A = transposed ? whole.section(a).transpose() : whole.section(a);
    const auto map = s2p::resource_map<2>::block(C.extent(), 2);
    const auto Cd = s2p::agile(C, map), Ad = s2p::agile(A, map);
    if (buffer == &expected) {
      s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i] + 1.0; });
      continue;
    }
    const s2p::rt::tile_kernel_info info{"within", "test.cpp", 2};
    s2p::rt::forall(
        info, 2, Cd, "Cd", [](s2p::index<2> i, auto& Cd, auto& Ad) { Cd[i] = Ad[i] + 1.0; },
        s2p::rt::reads(Ad, "Ad", {s2p::index_map<2>::identity()}));
  }
  EXPECT_EQ(expected, actual);
}

// Views of one buffer that share no element may be a forall's output and input, even when
// their rows interleave in memory (the left and the right half).
TEST_P(Forall, DisjointPartsOfOneBufferAreAccepted) {
  const s2p::grid<2> left{{8, 8}, {0, 0}}, right{{8, 8}, {0, 8}};
  forall_within_one_buffer(left, right, false);
  forall_within_one_buffer(right, left, true);
  forall_within_one_buffer({{4, 16}, {0, 0}}, {{4, 16}, {4, 0}}, false); // top and bottom rows
}

// A read outside an input is refused before any task runs, on every backend alike (in place,
// from the read's footprint: the image of the output under its index map).
TEST_P(Forall, AReadOutsideAnInputIsRefusedBeforeAnyTask) {
  std::vector<double> x(16, 1.0), y(16, -1.0);
  const auto map = s2p::resource_map<1>::block({16}, 2);
  const auto Yd = s2p::agile(s2p::field<1, double>(y.data(), {16}), map);
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"shifted", "test.cpp", 2};
  try {
    s2p::rt::forall(
        info, 2, Yd, "Yd",
        [](s2p::index<1> i, auto& Y, auto& X) { Y[i] = X[{i[0] + 1}]; },
        s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>{{0}, {1}}}));
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "seq2par: forall reads 'Xd' outside its extent");
  }
  EXPECT_EQ(y, std::vector<double>(16, -1.0)); // no task ran
}

INSTANTIATE_TEST_SUITE_P(Backends, Forall, ::testing::Values("sim", "threads", "threads_copies"));

// Both views of C = A + B^T need the same blocks, so they plan the same moves.
TEST(ForallReport, LocalGlobalViewMovesWhatTheGlobalViewMoves) {
  const auto map = map96();
  const std::vector<s2p::input_access<2>> global = {{"A", &map, s2p::index_map<2>::identity(), 8},
                                                   {"B", &map, s2p::index_map<2>::transpose(), 8}};
  auto local_global = global;
  for (auto& access : local_global)
    access.view = s2p::access_view::local_global;
  const auto by_element = s2p::plan_owner_copy<2>(map, global);
  const auto by_block = s2p::plan_owner_copy<2>(map, local_global);
  ASSERT_TRUE(by_block.error.empty()) << by_block.error;
  EXPECT_EQ(by_block.bytes, by_element.bytes);
  EXPECT_EQ(by_block.moves.size(), by_element.moves.size());
  EXPECT_EQ(by_block.algorithmic_moves, by_element.algorithmic_moves);
  EXPECT_EQ(by_block.bytes, s2p::minimum_block_bytes<2>(map, local_global));
  // A block access outside the field is refused by the plan, naming the block.
  std::vector<s2p::input_access<2>> shifted = {
      {"B", &map, s2p::index_map<2>{{0, 1}, {0, 1}}, 8, s2p::access_view::local_global}};
  const auto outside = s2p::plan_owner_copy<2>(map, shifted);
  EXPECT_NE(outside.error.find("outside its algorithmic blocks (output block (0, 5))"),
            std::string::npos)
      << outside.error;
}

TEST(ForallReport, SimReportsPlannedBytesAgainstTheMinimum) {
  skip_without_fabric("sim");
  if (::testing::Test::IsSkipped())
    return;
  Backend use("sim");
  std::vector<double> a(96 * 96, 1.0), b(96 * 96, 2.0), c(96 * 96);
  const auto map = map96();
  const auto Cd = s2p::agile(s2p::field<2, double>(c.data(), {96, 96}), map);
  const auto Ad = s2p::agile(s2p::field<2, double>(a.data(), {96, 96}), map);
  const auto Bd = s2p::agile(s2p::field<2, double>(b.data(), {96, 96}), map);
  const s2p::rt::tile_kernel_info info{"report_me", "test.cpp", 4};
  s2p::rt::forall(
      info, 4, Cd, "Cd",
      [](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
        Cd[i] = Ad[i] + Bd[{i[1], i[0]}];
      },
      s2p::rt::reads(Ad, "Ad", {s2p::index_map<2>::identity()}),
      s2p::rt::reads(Bd, "Bd", {s2p::index_map<2>::transpose()}));
  const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
  const auto& launch = report["launches"].back();
  ASSERT_EQ(launch["kernel"], "report_me");
  const auto& owner_copy = launch["owner_copy"];
  EXPECT_EQ(owner_copy["moves"].get<int>(), 8); // as in the 6144^2 golden
  EXPECT_EQ(owner_copy["planned_bytes"].get<long long>(), 8 * 32 * 16 * 8);
  EXPECT_EQ(owner_copy["minimum_bytes"], owner_copy["planned_bytes"]);
  EXPECT_GT(launch["total_cycles"].get<long long>(), 0);
  // Per-tile statistics, which tuning's feedback reads (transpiler/tuning/feedback.h).
  ASSERT_EQ(launch["tiles"]["per_tile"].size(), 4u);
  EXPECT_GT(launch["tiles"]["per_tile"][0]["busy_cycles"].get<long long>(), 0);
}

TEST(ForallErrors, ReadingTheOutputsMemoryThroughAnotherFieldIsRefused) {
  std::vector<double> c(16);
  const auto map = s2p::resource_map<1>::block({16}, 2);
  const auto Cd = s2p::agile(s2p::field<1, double>(c.data(), {16}), map);
  const auto Same = s2p::agile(s2p::field<1, double>(c.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"alias", "test.cpp", 2};
  EXPECT_THROW(s2p::rt::forall(
                   info, 2, Cd, "Cd", [](s2p::index<1> i, auto& Cd, auto& S) { Cd[i] = S[i]; },
                   s2p::rt::reads(Same, "Same", {s2p::index_map<1>::identity()})),
               std::invalid_argument);
}

// A fused forall (seq2par --plan's fusions): its further output, `writes`, is updated in place
// at the task's own index and stored back with the output; a field it writes may not share
// memory with another the forall names (the fused bodies would read what a later one writes).
TEST(ForallFused, WritesAFurtherOutputInPlace) {
  Backend backend("threads");
  std::vector<double> x(16), y(16, -1.0), z(16, -1.0);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k);
  const auto map = s2p::resource_map<1>::block_cyclic({16}, {3}, 2);
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {16}), map);
  const auto Yd = s2p::agile(s2p::field<1, double>(y.data(), {16}), map);
  const auto Zd = s2p::agile(s2p::field<1, double>(z.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"fused", "test.cpp", 2};
  s2p::rt::forall(
      info, 2, Yd, "Yd",
      [](s2p::index<1> i, auto& Y, auto& Z, auto& X) {
        Y[i] = X[i] * 2.0;
        Z[i] = Y[i] + 1.0;
      },
      s2p::rt::writes(Zd, "Zd"), s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>::identity()}));
  for (std::size_t k = 0; k < x.size(); ++k) {
    EXPECT_EQ(y[k], 2.0 * static_cast<double>(k));
    EXPECT_EQ(z[k], 2.0 * static_cast<double>(k) + 1.0);
  }
  const auto Same = s2p::agile(s2p::field<1, double>(z.data(), {16}), map);
  EXPECT_THROW(s2p::rt::forall(
                   info, 2, Yd, "Yd", [](s2p::index<1> i, auto& Y, auto& Z, auto& S) { Z[i] = S[i] + Y[i]; },
                   s2p::rt::writes(Zd, "Zd"), s2p::rt::reads(Same, "Same", {s2p::index_map<1>::identity()})),
               std::invalid_argument);
}

// Work stealing returns only a stolen task's output: a fused forall's further output must
// still hold every task's result when a lopsided map makes the other tiles steal (before, the
// thieves' updates of Z stayed in their copies and Z kept its old values there).
TEST(ForallFused, FurtherOutputsKeepEveryTasksResultUnderWorkStealing) {
  Backend backend("threads");
  setenv("S2P_WORK_STEALING", "greedy", 1);
  std::vector<double> x(64), y(64, -1.0), z(64, -1.0);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<double>(k);
  const auto map = s2p::resource_map<1>::block({64}, 4).weights({6, 1, 1, 1});
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {64}), map);
  const auto Yd = s2p::agile(s2p::field<1, double>(y.data(), {64}), map);
  const auto Zd = s2p::agile(s2p::field<1, double>(z.data(), {64}), map);
  const s2p::rt::tile_kernel_info info{"fused_stealing", "test.cpp", 4};
  s2p::rt::forall(
      info, 4, Yd, "Yd",
      [](s2p::index<1> i, auto& Y, auto& Z, auto& X) {
        Y[i] = X[i] * 2.0;
        Z[i] = Y[i] + 1.0;
      },
      s2p::rt::writes(Zd, "Zd"), s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>::identity()}));
  unsetenv("S2P_WORK_STEALING");
  for (std::size_t k = 0; k < x.size(); ++k) {
    EXPECT_EQ(y[k], 2.0 * static_cast<double>(k)) << k;
    EXPECT_EQ(z[k], 2.0 * static_cast<double>(k) + 1.0) << k;
  }
}

// The runtime's refusal of C = A + 1 over these views ("" if the forall ran).
std::string refusal(const s2p::field<2, double>& C, const s2p::field<2, double>& A) {
  Backend backend("threads");
  const auto map = s2p::resource_map<2>::block(C.extent(), 2);
  const auto Cd = s2p::agile(C, map), Ad = s2p::agile(A, map);
  const s2p::rt::tile_kernel_info info{"overlap", "test.cpp", 2};
  try {
    s2p::rt::forall(
        info, 2, Cd, "Cd", [](s2p::index<2> i, auto& Cd, auto& Ad) { Cd[i] = Ad[i] + 1.0; },
        s2p::rt::reads(Ad, "Ad", {s2p::index_map<2>::identity()}));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The user's report: a field over b + 1 written from one over b (sequential and parallel
// results differed). Different data pointers, overlapping elements.
TEST(ForallErrors, AnOutputOneElementPastItsInputIsRefused) {
  std::vector<double> b(17);
  EXPECT_EQ(
      refusal(s2p::field<2, double>(b.data() + 1, {4, 4}), s2p::field<2, double>(b.data(), {4, 4})),
      "seq2par: a forall reads 'Ad', which shares memory with 'Cd', the field it writes "
      "(tiles would read elements other tiles overwrite); write the result to a separate "
      "buffer");
}

TEST(ForallErrors, OverlappingSectionsOfOneBufferAreRefused) {
  std::vector<double> b(8 * 16);
  const s2p::field<2, double> whole(b.data(), {8, 16});
  EXPECT_NE(refusal(whole.section({{4, 8}, {0, 0}}), whole.section({{4, 8}, {2, 4}})), "");
  // Only one element in common: row 3, column 7.
  EXPECT_NE(refusal(whole.section({{4, 8}, {0, 0}}), whole.section({{4, 8}, {3, 7}})), "");
}

TEST(ForallErrors, ATransposeOfAnOverlappingPartOfTheBufferIsRefused) {
  std::vector<double> b(8 * 16);
  const s2p::field<2, double> whole(b.data(), {8, 16});
  EXPECT_NE(refusal(whole.section({{8, 8}, {0, 4}}), whole.section({{8, 8}, {0, 0}}).transpose()),
            "");
  EXPECT_NE(refusal(whole.section({{8, 8}, {0, 0}}), whole.section({{8, 8}, {0, 0}}).transpose()),
            "");
}

// The overlap test against the sets of elements: random sections of a 6x7 buffer, each
// possibly transposed (rows of a section interleave with its neighbours' in memory).
TEST(ForallSharedMemory, AgreesWithTheElementsTheViewsTouch) {
  std::vector<double> b(6 * 7);
  const s2p::field<2, double> whole(b.data(), {6, 7});
  std::uint64_t state = 12345;
  auto next = [&](std::int64_t below) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(below));
  };
  auto random_view = [&] {
    const s2p::index<2> at{next(6), next(7)};
    const s2p::extent<2> size{1 + next(6 - at[0]), 1 + next(7 - at[1])};
    const auto view = whole.section({size, at});
    return next(2) ? view.transpose() : view;
  };
  auto elements = [&](const s2p::field<2, double>& f) {
    std::vector<bool> touched(b.size());
    for (std::int64_t k = 0; k < f.size(); ++k)
      touched[static_cast<std::size_t>(&f[s2p::delinearize(k, f.extent())] - b.data())] = true;
    return touched;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    const auto x = random_view(), y = random_view();
    const auto in_x = elements(x), in_y = elements(y);
    bool common = false;
    for (std::size_t k = 0; k < b.size(); ++k)
      common = common || (in_x[k] && in_y[k]);
    ASSERT_EQ(s2p::rt::forall_detail::share_memory(x, y), common) << "trial " << trial;
  }
}

} // namespace
