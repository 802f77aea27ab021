// Ring collectives: the sequential meaning (the oracle) against both backends, bit for bit,
// and against the plain element-wise definition on exactly representable data.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Backend {
  explicit Backend(const char* name) { setenv("S2P_BACKEND", name, 1); }
  ~Backend() { unsetenv("S2P_BACKEND"); }
};

std::vector<float> random_rows(int tiles, int elements, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> rows(static_cast<std::size_t>(tiles) * elements);
  for (auto& v : rows)
    v = value(rng);
  return rows;
}

class Collectives : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

TEST_P(Collectives, AllReduceMatchesTheSequentialRingBitForBit) {
  const auto [backend, tiles] = GetParam();
  if (std::string(backend) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  Backend use(backend);
  const int elements = 3 * tiles + 5; // fragments of unequal size
  auto expected = random_rows(tiles, elements, 7);
  auto actual = expected;
  s2p::all_reduce(s2p::field<2, float>(expected.data(), {tiles, elements}), s2p::sum{});
  const s2p::rt::tile_kernel_info info{"allreduce", "test.cpp", tiles};
  s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                      s2p::field<2, float>(actual.data(), {tiles, elements}), s2p::sum{});
  ASSERT_EQ(0, std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)));
}

TEST_P(Collectives, ReduceScatterThenAllGatherEqualsAllReduce) {
  const auto [backend, tiles] = GetParam();
  if (std::string(backend) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  Backend use(backend);
  const int elements = 2 * tiles;
  auto expected = random_rows(tiles, elements, 11);
  auto actual = expected;
  s2p::all_reduce(s2p::field<2, float>(expected.data(), {tiles, elements}), s2p::maximum{});
  const s2p::rt::tile_kernel_info info{"split", "test.cpp", tiles};
  const s2p::field<2, float> f(actual.data(), {tiles, elements});
  s2p::rt::collective(info, s2p::rt::collective_kind::reduce_scatter, f, s2p::maximum{});
  s2p::rt::collective(info, s2p::rt::collective_kind::all_gather, f, s2p::maximum{});
  ASSERT_EQ(expected, actual);
}

TEST_P(Collectives, EveryTileEndsWithTheElementWiseSum) {
  const auto [backend, tiles] = GetParam();
  if (std::string(backend) == "sim" && !s2p::rt::has_fabric_simulator())
    GTEST_SKIP() << "built without the fabric simulator";
  Backend use(backend);
  const int elements = tiles + 1;
  std::vector<double> rows(static_cast<std::size_t>(tiles) * elements),
      sums(static_cast<std::size_t>(elements), 0.0);
  for (int t = 0; t < tiles; ++t)
    for (int x = 0; x < elements; ++x) {
      rows[static_cast<std::size_t>(t * elements + x)] =
          (t * 7 + x * 3) % 17 - 8; // small integers: exact sums
      sums[static_cast<std::size_t>(x)] += rows[static_cast<std::size_t>(t * elements + x)];
    }
  const s2p::rt::tile_kernel_info info{"sums", "test.cpp", tiles};
  s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                      s2p::field<2, double>(rows.data(), {tiles, elements}), s2p::sum{});
  for (int t = 0; t < tiles; ++t)
    for (int x = 0; x < elements; ++x)
      ASSERT_EQ(rows[static_cast<std::size_t>(t * elements + x)],
                sums[static_cast<std::size_t>(x)]);
}

INSTANTIATE_TEST_SUITE_P(Backends, Collectives,
                         ::testing::Combine(::testing::Values("sim", "threads"),
                                            ::testing::Values(1, 2, 6, 64)));

TEST(CollectivesErrors, RowCountMustMatchTheKernelsTiles) {
  std::vector<float> rows(12);
  const s2p::rt::tile_kernel_info info{"wrong", "test.cpp", 4};
  EXPECT_THROW(s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                                   s2p::field<2, float>(rows.data(), {3, 4}), s2p::sum{}),
               std::invalid_argument);
}

TEST(CollectivesErrors, SequentialOracleRefusesRowsShorterThanTheTileCount) {
  std::vector<float> rows(12);
  EXPECT_THROW(s2p::all_reduce(s2p::field<2, float>(rows.data(), {6, 2}), s2p::sum{}),
               std::invalid_argument);
}

// What the sequential library refuses, every backend refuses with the same message (the
// acceptance fuzzer found sim and threads computing a result for rows the oracle rejects).
TEST(CollectivesErrors, BackendsRefuseWhatTheOracleRefuses) {
  std::vector<long> rows(12);
  std::string oracle;
  try {
    s2p::all_reduce(s2p::field<2, long>(rows.data(), {4, 3}), s2p::maximum{});
  } catch (const std::invalid_argument& e) {
    oracle = e.what();
  }
  ASSERT_FALSE(oracle.empty());
  const s2p::rt::tile_kernel_info info{"short_rows", "test.cpp", 4};
  for (const char* backend : {"sim", "threads"}) {
    setenv("S2P_BACKEND", backend, 1);
    try {
      s2p::rt::collective(info, s2p::rt::collective_kind::all_reduce,
                          s2p::field<2, long>(rows.data(), {4, 3}), s2p::maximum{});
      ADD_FAILURE() << backend << " accepted rows the sequential library refuses";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), oracle) << backend;
    }
  }
  unsetenv("S2P_BACKEND");
}

} // namespace
