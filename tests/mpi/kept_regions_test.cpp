// The geometry of results kept on the mpi ranks (runtime/src/tile/mpi/kept_regions.h): which
// fields share elements, where one lies in another's coordinates, and the bytes of rectangles.
#include "tile/mpi/kept_regions.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

using namespace s2p::rt;
using namespace s2p::rt::mpi;
using s2p::rt::forall_detail::memory_of;

namespace {

template <int N> field_memory memory(const s2p::field<N, double>& f) {
  return memory_of(f);
}

// Whether other[i] is at the address of kept[i + shift] for every index i of `other`.
bool same_addresses(const field_memory& kept, const field_memory& other,
                    const std::vector<std::int64_t>& shift) {
  for (std::int64_t i = 0; i < other.extent[0]; ++i)
    for (std::int64_t j = 0; j < other.extent[1]; ++j) {
      const std::byte* in_other = other.base + (i * other.strides[0] + j) * other.element_bytes;
      const std::byte* in_kept =
          kept.base + ((i + shift[0]) * kept.strides[0] + j + shift[1]) * kept.element_bytes;
      if (in_other != in_kept)
        return false;
    }
  return true;
}

memory_box box(std::vector<std::int64_t> offset, std::vector<std::int64_t> size) {
  return {std::move(offset), std::move(size)};
}

} // namespace

TEST(KeptRegions, SectionsOfOneFieldShareItsCoordinates) {
  std::vector<double> data(10 * 8);
  const s2p::field<2, double> whole(data.data(), {10, 8});
  const s2p::field<2, double> interior = whole.section({{8, 6}, {1, 1}});
  EXPECT_TRUE(memory_overlaps(memory(whole), memory(interior)));
  EXPECT_FALSE(same_memory(memory(whole), memory(interior)));
  // whole[i] is interior[i - (1, 1)], and back.
  EXPECT_EQ(offset_in(memory(interior), memory(whole)), (std::vector<std::int64_t>{-1, -1}));
  EXPECT_EQ(offset_in(memory(whole), memory(interior)), (std::vector<std::int64_t>{1, 1}));
  // Two sections side by side in the same rows, or lower down and to the left: they share no
  // element, and either of the two shifts that place one in the other's rows is right.
  const s2p::field<2, double> left = whole.section({{10, 4}, {0, 0}});
  const s2p::field<2, double> right = whole.section({{10, 4}, {0, 4}});
  const s2p::field<2, double> low_left = whole.section({{3, 3}, {6, 0}});
  const s2p::field<2, double> high_right = whole.section({{3, 3}, {1, 5}});
  for (const auto& [kept, other] : {std::pair{left, right}, std::pair{right, left},
                                    std::pair{high_right, low_left}, std::pair{low_left, high_right}}) {
    const auto shift = offset_in(memory(kept), memory(other));
    ASSERT_TRUE(shift);
    EXPECT_TRUE(same_addresses(memory(kept), memory(other), *shift));
  }
  EXPECT_TRUE(same_addresses(memory(interior), memory(whole), {-1, -1}));
}

TEST(KeptRegions, OtherViewsCannotBePlaced) {
  std::vector<double> data(6 * 6);
  const s2p::field<2, double> whole(data.data(), {6, 6});
  EXPECT_FALSE(offset_in(memory(whole), memory(whole.transpose())));
  const s2p::field<1, double> flat(data.data(), {36});
  EXPECT_FALSE(offset_in(memory(whole), memory_of(flat)));
  EXPECT_TRUE(memory_overlaps(memory(whole), memory_of(flat)));
  // Lifted views repeat an axis (stride 0): not row-major.
  EXPECT_FALSE(offset_in(memory_of(flat.lifted<2>()), memory_of(flat.lifted<2>())));
}

TEST(KeptRegions, DisjointMemoryDoesNotOverlap) {
  std::vector<double> a(16), b(16);
  const s2p::field<2, double> x(a.data(), {4, 4}), y(b.data(), {4, 4});
  EXPECT_FALSE(memory_overlaps(memory(x), memory(y)));
  const s2p::field<2, double> top = x.section({{2, 4}, {0, 0}});
  const s2p::field<2, double> bottom = x.section({{2, 4}, {2, 0}});
  EXPECT_FALSE(memory_overlaps(memory(top), memory(bottom)));
  const s2p::field<2, double> none(a.data(), {0, 4});
  EXPECT_FALSE(memory_overlaps(memory(none), memory(x)));
}

TEST(KeptRegions, BoxesIntersectShiftAndPack) {
  const memory_box a = box({0, 0}, {4, 5}), b = box({2, 3}, {5, 5});
  EXPECT_EQ(intersection(a, b), box({2, 3}, {2, 2}));
  EXPECT_TRUE(is_empty(intersection(a, box({4, 0}, {1, 5}))));
  EXPECT_EQ(shifted(a, {1, -1}), box({1, -1}, {4, 5}));
  EXPECT_TRUE(contains(a, box({1, 1}, {2, 2})));
  EXPECT_FALSE(contains(box({1, 1}, {2, 2}), a));

  std::vector<double> data(4 * 5), copy(4 * 5, -1.0);
  for (std::size_t k = 0; k < data.size(); ++k)
    data[k] = static_cast<double>(k);
  const field_memory from = memory_of(s2p::field<2, double>(data.data(), {4, 5}));
  const field_memory to = memory_of(s2p::field<2, double>(copy.data(), {4, 5}));
  const memory_box middle = box({1, 1}, {2, 3});
  EXPECT_EQ(box_bytes(from, middle), 6 * 8);
  std::vector<std::byte> bytes;
  pack_box(from, middle, bytes);
  ASSERT_EQ(bytes.size(), 48u);
  EXPECT_EQ(unpack_box(to, middle, bytes.data()), bytes.data() + bytes.size());
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      const bool inside = i >= 1 && i < 3 && j >= 1 && j < 4;
      EXPECT_EQ(copy[static_cast<std::size_t>(i * 5 + j)],
                inside ? static_cast<double>(i * 5 + j) : -1.0)
          << i << ", " << j;
    }
  // A transposed view packs element by element, in its own row-major order.
  std::vector<std::byte> columns;
  pack_box(memory_of(s2p::field<2, double>(data.data(), {4, 5}).transpose()),
           box({0, 0}, {2, 2}), columns);
  std::vector<double> values(4);
  std::memcpy(values.data(), columns.data(), columns.size());
  EXPECT_EQ(values, (std::vector<double>{0, 5, 1, 6}));
}
