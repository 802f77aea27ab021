// The sequential meaning of <seq2par/seq2par.h>: what the oracle run computes with.
#include <seq2par/seq2par.h>

#include <gtest/gtest.h>

namespace {

TEST(Pool, TensorsAreViewsIntoOnePoolAndMayAlias) {
  s2p::pool<int, 60> smem;
  auto quarters = smem.tensor<4, 15>(0);
  auto whole = smem.tensor<1, 60>(0);
  quarters[2][3] = 42;
  EXPECT_EQ(whole[0][33], 42);
  EXPECT_EQ(quarters[1].size(), 15u);
  EXPECT_EQ(whole[0].data(), smem.data());
}

TEST(Pool, RankTwoTensorsAreRowMajor) {
  s2p::pool<int, 48> smem;
  auto grid = smem.tensor<2, 3, 8>(0);
  EXPECT_EQ(grid(1, 2).data(), smem.data() + (1 * 3 + 2) * 8);
  EXPECT_EQ(grid.all().size(), 48u);
}

TEST(Pool, OverflowAndOutOfRangeCoordinatesThrow) {
  s2p::pool<float, 60> smem;
  EXPECT_THROW((smem.tensor<3, 20>(10)), std::out_of_range);
  auto t = smem.tensor<3, 10>(0);
  EXPECT_THROW(t[3], std::out_of_range);
  EXPECT_THROW(t[-1], std::out_of_range);
}

// Element accesses check their index as assert does (tests/runtime/index_checks_test.cpp
// checks the checked build).
TEST(IndexChecks, FollowNdebugUnlessChosen) {
#ifdef NDEBUG
  EXPECT_EQ(S2P_CHECK_INDICES, 0);
#else
  EXPECT_EQ(S2P_CHECK_INDICES, 1);
#endif
}

TEST(TensorRef, SubTensorsOfAFixedSize) {
  float data[12] = {};
  s2p::tensor_ref<float> ref(data, 3, 4);
  ref[2][1] = 7.0f;
  EXPECT_EQ(data[9], 7.0f);
  EXPECT_THROW(ref[3], std::out_of_range);
}

void write_ones(s2p::out<int> o) {
  for (auto& v : o)
    v = 1;
}
int sum(s2p::in<int> i) {
  int s = 0;
  for (int v : i)
    s += v;
  return s;
}
void twice(s2p::inout<int> io) {
  for (auto& v : io)
    v *= 2;
}

TEST(Wrappers, ConvertImplicitlyFromViews) {
  s2p::pool<int, 8> smem;
  auto t = smem.tensor<2, 4>(0);
  write_ones(t[1]);
  twice(t[1]);
  EXPECT_EQ(sum(t[1]), 8);
  EXPECT_EQ(sum(t[0]), 0);
}

} // namespace
