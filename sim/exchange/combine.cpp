#include "exchange/combine.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace s2p::sim::detail {

namespace {

template <class T> T apply(CombineOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case CombineOp::kSum:
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case CombineOp::kProd:
      // Promote so that u16 * u16 does not overflow a (signed) int.
      return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) *
                                           static_cast<std::uint64_t>(static_cast<U>(b))));
    case CombineOp::kMax:
      return a < b ? b : a;
    case CombineOp::kMin:
      return b < a ? b : a;
    case CombineOp::kCopy:
      return b;
    }
  } else {
    switch (op) {
    case CombineOp::kSum:
      return a + b;
    case CombineOp::kProd:
      return a * b;
    case CombineOp::kMax:
      return a < b ? b : a;
    case CombineOp::kMin:
      return b < a ? b : a;
    case CombineOp::kCopy:
      return b;
    }
  }
  return b;
}

/// Works through small aligned chunks: memcpy in and out keeps it free of aliasing and
/// alignment assumptions while the inner loop still vectorises.
template <class T>
void combine_typed(std::byte* dst, const std::byte* src, std::size_t count, CombineOp op) {
  constexpr std::size_t kChunk = 256;
  T a[kChunk];
  T b[kChunk];
  for (std::size_t done = 0; done < count; done += kChunk) {
    const std::size_t n = count - done < kChunk ? count - done : kChunk;
    std::memcpy(a, dst + done * sizeof(T), n * sizeof(T));
    std::memcpy(b, src + done * sizeof(T), n * sizeof(T));
    switch (op) { // hoisted so each loop body is a single operation
    case CombineOp::kSum:
      for (std::size_t i = 0; i < n; ++i)
        a[i] = apply(CombineOp::kSum, a[i], b[i]);
      break;
    case CombineOp::kProd:
      for (std::size_t i = 0; i < n; ++i)
        a[i] = apply(CombineOp::kProd, a[i], b[i]);
      break;
    case CombineOp::kMax:
      for (std::size_t i = 0; i < n; ++i)
        a[i] = apply(CombineOp::kMax, a[i], b[i]);
      break;
    case CombineOp::kMin:
      for (std::size_t i = 0; i < n; ++i)
        a[i] = apply(CombineOp::kMin, a[i], b[i]);
      break;
    case CombineOp::kCopy:
      std::memcpy(a, b, n * sizeof(T));
      break;
    }
    std::memcpy(dst + done * sizeof(T), a, n * sizeof(T));
  }
}

} // namespace

void combine_into(std::span<std::byte> dst, std::span<const std::byte> src, CombineOp op,
                  ElementType type) {
  const std::size_t bytes = dst.size() < src.size() ? dst.size() : src.size();
  if (op == CombineOp::kCopy) {
    std::memmove(dst.data(), src.data(), bytes);
    return;
  }
  const std::size_t n = bytes / element_size(type);
  switch (type) {
  case ElementType::kI8:
    return combine_typed<std::int8_t>(dst.data(), src.data(), n, op);
  case ElementType::kU8:
    return combine_typed<std::uint8_t>(dst.data(), src.data(), n, op);
  case ElementType::kI16:
    return combine_typed<std::int16_t>(dst.data(), src.data(), n, op);
  case ElementType::kU16:
    return combine_typed<std::uint16_t>(dst.data(), src.data(), n, op);
  case ElementType::kI32:
    return combine_typed<std::int32_t>(dst.data(), src.data(), n, op);
  case ElementType::kU32:
    return combine_typed<std::uint32_t>(dst.data(), src.data(), n, op);
  case ElementType::kI64:
    return combine_typed<std::int64_t>(dst.data(), src.data(), n, op);
  case ElementType::kU64:
    return combine_typed<std::uint64_t>(dst.data(), src.data(), n, op);
  case ElementType::kF32:
    return combine_typed<float>(dst.data(), src.data(), n, op);
  case ElementType::kF64:
    return combine_typed<double>(dst.data(), src.data(), n, op);
  }
}

} // namespace s2p::sim::detail
