// Element accesses in a build that checks them (S2P_CHECK_INDICES=1, set for this whole
// program: every translation unit must agree, or the linker keeps one of the two inline
// definitions). An index outside the extent throws std::out_of_range.
#include <seq2par/seq2par.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

static_assert(S2P_CHECK_INDICES == 1, "this program checks the checked build");

TEST(IndexChecks, ViewIndexOutsideThrows) {
  s2p::pool<float, 60> smem;
  auto t = smem.tensor<3, 10>(0);
  EXPECT_NO_THROW(t[0][9]);
  EXPECT_THROW(t[0][10], std::out_of_range);
}

TEST(IndexChecks, FieldIndexOutsideThrows) {
  std::vector<double> data(12);
  const s2p::field<2, double> f(data.data(), {3, 4});
  EXPECT_NO_THROW(f(2, 3));
  EXPECT_THROW(f(3, 0), std::out_of_range);
  EXPECT_THROW(f(0, -1), std::out_of_range);
  // An agile field's access is its field's.
  const auto a = s2p::agile(f, s2p::resource_map<2>::block(f.extent(), 2));
  EXPECT_THROW(a[(s2p::index<2>{0, 4})], std::out_of_range);
}
