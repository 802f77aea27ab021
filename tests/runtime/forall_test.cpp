// forall over agile fields with owner-copy, run through the runtime as generated code does:
// results against the sequential forall, on both backends, plus the moves' report.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace {

struct Backend {
  explicit Backend(const char* name) { setenv("S2P_BACKEND", name, 1); }
  ~Backend() { unsetenv("S2P_BACKEND"); }
};

// The seed's 6144^2 structure scaled by 1/64: 96^2 doubles, 32^2 segments on 4 tiles
// block-cyclically, 32x16 memory blocks, 16^2 algorithmic blocks.
s2p::resource_map<2> map96() {
  return s2p::resource_map<2>::block_cyclic({96, 96}, {32, 32}, 4)
      .memory_blocks({32, 16})
      .algorithmic_blocks({16, 16});
}

class Forall : public ::testing::TestWithParam<const char*> {};

void skip_without_fabric(const char* backend) {
  if (std::string(backend) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
}

TEST_P(Forall, AddTransposeMatchesTheSequentialForall) {
  skip_without_fabric(GetParam());
  if (::testing::Test::IsSkipped())
    return;
  Backend use(GetParam());
  std::vector<double> a(96 * 96), b(96 * 96), expected(96 * 96, -1.0), actual(96 * 96, -1.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>(k % 101) * 0.5;
    b[k] = static_cast<double>((k * 7) % 89) - 40.0;
  }
  const auto map = map96();
  const s2p::field<2, double> A(a.data(), {96, 96}), B(b.data(), {96, 96});
  {
    const auto Cd = s2p::agile(s2p::field<2, double>(expected.data(), {96, 96}), map);
    const auto Ad = s2p::agile(A, map), Bd = s2p::agile(B, map);
    s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i] + Bd[{i[1], i[0]}]; });
  }
  const auto Cd = s2p::agile(s2p::field<2, double>(actual.data(), {96, 96}), map);
  const auto Ad = s2p::agile(A, map), Bd = s2p::agile(B, map);
  const s2p::rt::tile_kernel_info info{"add_transpose", "test.cpp", 4};
  s2p::rt::forall(
      info, 4, Cd, "Cd",
      [&](s2p::index<2> i, auto& Cd, auto& Ad, auto& Bd) {
        Cd[i] = Ad[i] + Bd[{i[1], i[0]}];
      },
      s2p::rt::reads(Ad, "Ad", {s2p::IndexMap<2>::identity()}),
      s2p::rt::reads(Bd, "Bd", {s2p::IndexMap<2>::transpose()}));
  EXPECT_EQ(expected, actual);
}

TEST_P(Forall, WeightedBlockCyclicElementwiseOnOneDimension) {
  skip_without_fabric(GetParam());
  if (::testing::Test::IsSkipped())
    return;
  Backend use(GetParam());
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
          s2p::rt::reads(Xd, "Xd", {s2p::IndexMap<1>::identity()}),
          s2p::rt::reads(Yd, "Yd", {s2p::IndexMap<1>::identity()}));
    }
  }
  EXPECT_EQ(expected, actual);
}

INSTANTIATE_TEST_SUITE_P(Backends, Forall, ::testing::Values("sim", "threads"));

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
      s2p::rt::reads(Ad, "Ad", {s2p::IndexMap<2>::identity()}),
      s2p::rt::reads(Bd, "Bd", {s2p::IndexMap<2>::transpose()}));
  const auto report = nlohmann::json::parse(s2p::rt::sim_report_json());
  const auto& launch = report["launches"].back();
  ASSERT_EQ(launch["kernel"], "report_me");
  const auto& owner_copy = launch["owner_copy"];
  EXPECT_EQ(owner_copy["moves"].get<int>(), 8); // as in the 6144^2 golden
  EXPECT_EQ(owner_copy["planned_bytes"].get<long long>(), 8 * 32 * 16 * 8);
  EXPECT_EQ(owner_copy["minimum_bytes"], owner_copy["planned_bytes"]);
  EXPECT_GT(launch["total_cycles"].get<long long>(), 0);
}

TEST(ForallErrors, ReadingTheOutputsMemoryThroughAnotherFieldIsRefused) {
  std::vector<double> c(16);
  const auto map = s2p::resource_map<1>::block({16}, 2);
  const auto Cd = s2p::agile(s2p::field<1, double>(c.data(), {16}), map);
  const auto Same = s2p::agile(s2p::field<1, double>(c.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"alias", "test.cpp", 2};
  EXPECT_THROW(s2p::rt::forall(
                   info, 2, Cd, "Cd", [](s2p::index<1> i, auto& Cd, auto& S) { Cd[i] = S[i]; },
                   s2p::rt::reads(Same, "Same", {s2p::IndexMap<1>::identity()})),
               std::invalid_argument);
}

} // namespace
