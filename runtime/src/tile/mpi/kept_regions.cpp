#include "tile/mpi/kept_regions.h"

#include <algorithm>
#include <cstring>

namespace s2p::rt::mpi {

namespace {

struct address_range {
  std::intptr_t lo = 0, hi = 0; // [lo, hi)
};

address_range range_of(const field_memory& f) {
  std::int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < f.extent.size(); ++d) {
    const std::int64_t span = (f.extent[d] - 1) * f.strides[d];
    lo += std::min<std::int64_t>(span, 0);
    hi += std::max<std::int64_t>(span, 0);
  }
  const auto base = reinterpret_cast<std::intptr_t>(f.base);
  return {base + static_cast<std::intptr_t>(lo * f.element_bytes),
          base + static_cast<std::intptr_t>((hi + 1) * f.element_bytes)};
}

bool has_elements(const field_memory& f) {
  return std::all_of(f.extent.begin(), f.extent.end(), [](std::int64_t e) { return e > 0; });
}

std::int64_t floor_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}

bool row_major(const field_memory& f) {
  const std::size_t n = f.strides.size();
  if (n == 0 || f.strides[n - 1] != 1)
    return false;
  for (std::size_t d = 0; d + 1 < n; ++d)
    if (f.strides[d + 1] <= 0 || f.strides[d] < f.strides[d + 1] ||
        f.strides[d] % f.strides[d + 1] != 0)
      return false;
  return true;
}

// Calls run(element offset of the run's first element, elements in the run) for each run of
// the box's elements that lie one after another (its rows along the last axis when that axis is
// contiguous), in row-major order.
template <class Run> void for_each_run(const field_memory& f, const memory_box& b, Run&& run) {
  if (is_empty(b))
    return;
  const std::size_t n = b.size.size();
  const bool rows = f.strides[n - 1] == 1;
  const std::int64_t length = rows ? b.size[n - 1] : 1;
  std::vector<std::int64_t> at(b.offset);
  const std::size_t outer = rows ? n - 1 : n; // the axes the runs are stepped along
  while (true) {
    std::int64_t element = 0;
    for (std::size_t d = 0; d < n; ++d)
      element += at[d] * f.strides[d];
    run(element, length);
    std::size_t d = outer;
    while (d > 0) {
      --d;
      if (++at[d] < b.offset[d] + b.size[d])
        break;
      at[d] = b.offset[d];
      if (d == 0)
        return;
    }
    if (outer == 0)
      return;
  }
}

} // namespace

bool memory_overlaps(const field_memory& a, const field_memory& b) {
  if (!has_elements(a) || !has_elements(b))
    return false;
  const address_range x = range_of(a), y = range_of(b);
  return x.lo < y.hi && y.lo < x.hi;
}

bool same_memory(const field_memory& a, const field_memory& b) {
  return a.base == b.base && a.element_bytes == b.element_bytes && a.extent == b.extent &&
         a.strides == b.strides;
}

std::optional<std::vector<std::int64_t>> offset_in(const field_memory& kept,
                                                   const field_memory& other) {
  const std::size_t n = kept.extent.size();
  if (other.extent.size() != n || other.element_bytes != kept.element_bytes ||
      other.strides != kept.strides || !row_major(kept))
    return std::nullopt;
  const std::int64_t bytes = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(other.base) -
                                                       reinterpret_cast<std::intptr_t>(kept.base));
  if (bytes % kept.element_bytes != 0)
    return std::nullopt;
  // From the last axis up: the shift along axis d is the offset modulo the row length there
  // (the stride above over this one), or that minus a row: the one that puts both fields'
  // columns into one row of that length -- where they lie as sections of one field.
  std::int64_t rest = bytes / kept.element_bytes; // in units of the current axis' stride
  std::vector<std::int64_t> shift(n);
  for (std::size_t d = n - 1; d > 0; --d) {
    const std::int64_t row = kept.strides[d - 1] / kept.strides[d];
    const auto fits = [&](std::int64_t c) {
      return std::max(c + other.extent[d], kept.extent[d]) - std::min<std::int64_t>(c, 0) <= row;
    };
    const std::int64_t r = floor_mod(rest, row);
    if (fits(r))
      shift[d] = r;
    else if (fits(r - row))
      shift[d] = r - row;
    else
      return std::nullopt;
    rest = (rest - shift[d]) / row;
  }
  shift[0] = rest;
  return shift;
}

std::optional<std::vector<std::int64_t>> enclosing_array(const field_memory& f) {
  if (!row_major(f))
    return std::nullopt;
  std::vector<std::int64_t> sizes(f.extent.size());
  sizes[0] = f.extent[0];
  for (std::size_t d = 1; d < sizes.size(); ++d) {
    sizes[d] = f.strides[d - 1] / f.strides[d];
    if (sizes[d] < f.extent[d])
      return std::nullopt;
  }
  return sizes;
}

bool is_empty(const memory_box& b) {
  return b.size.empty() ||
         std::any_of(b.size.begin(), b.size.end(), [](std::int64_t s) { return s <= 0; });
}

memory_box intersection(const memory_box& a, const memory_box& b) {
  memory_box r = a;
  for (std::size_t d = 0; d < a.offset.size(); ++d) {
    const std::int64_t lo = std::max(a.offset[d], b.offset[d]);
    const std::int64_t hi = std::min(a.offset[d] + a.size[d], b.offset[d] + b.size[d]);
    r.offset[d] = lo;
    r.size[d] = std::max<std::int64_t>(hi - lo, 0);
  }
  return r;
}

memory_box shifted(const memory_box& b, const std::vector<std::int64_t>& by) {
  memory_box r = b;
  for (std::size_t d = 0; d < r.offset.size(); ++d)
    r.offset[d] += by[d];
  return r;
}

bool contains(const memory_box& outer, const memory_box& inner) {
  return intersection(outer, inner) == inner;
}

std::int64_t box_bytes(const field_memory& f, const memory_box& b) {
  if (is_empty(b))
    return 0;
  std::int64_t elements = 1;
  for (const std::int64_t s : b.size)
    elements *= s;
  return elements * f.element_bytes;
}

void pack_box(const field_memory& f, const memory_box& b, std::vector<std::byte>& out) {
  for_each_run(f, b, [&](std::int64_t element, std::int64_t count) {
    const std::byte* from = f.base + element * f.element_bytes;
    out.insert(out.end(), from, from + count * f.element_bytes);
  });
}

const std::byte* unpack_box(const field_memory& f, const memory_box& b, const std::byte* in) {
  for_each_run(f, b, [&](std::int64_t element, std::int64_t count) {
    std::memcpy(f.base + element * f.element_bytes, in,
                static_cast<std::size_t>(count * f.element_bytes));
    in += count * f.element_bytes;
  });
  return in;
}

} // namespace s2p::rt::mpi
