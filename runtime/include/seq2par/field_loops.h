// <seq2par/field_loops.h> — loops over a field's elements that the in-place forall and the mpi
// backend's gathers share: the body's loop versioned on unit stride, and a grid's elements
// packed into bytes and back. C++17, like the rest of what generated code includes.
#pragma once

#include <seq2par/distribution.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace s2p::rt {

// Runs loop() in one of two copies: one taken when every field in `fields` has a contiguous
// last axis (stride 1, every field but a transposed view), where the compiler knows the
// strides are 1 and vectorizes and interleaves the body as it does a plain loop over arrays;
// the other for any layout. Without it the vectorizer versions the loop on the strides itself
// but does not interleave it: on jacobi-2d the in-place sweep then runs about 5% behind the
// sequential build's loop (`scripts/bench host`, docs/runtime.md).
template <class Loop, int N, class... T>
void versioned_on_unit_stride(Loop&& loop, const field<N, T>&... fields) {
  // NOLINTNEXTLINE(bugprone-branch-clone): alike on purpose, see above
  if (((fields.strides()[N - 1] == 1) && ...))
    loop(); // the copy in which every last stride is known to be 1
  else
    loop();
}

// Calls run(element, count) for each run of grid `g`'s elements of `f` that lie one after
// another in memory (its rows where the last axis is contiguous), in row-major order.
template <int N, class T, class Run> void for_each_run(const field<N, T>& f, const grid<N>& g,
                                                       Run&& run) {
  if (g.total_extent() == 0)
    return;
  const bool rows = f.strides()[N - 1] == 1;
  grid<N> starts = g;
  if (rows)
    starts.size[N - 1] = 1;
  for_each_index(starts, [&](const index<N>& i) { run(&f[i], rows ? g.size[N - 1] : 1); });
}

// The bytes of `f`'s elements over grid `g`, row-major, appended to `out` / read from `in`.
template <int N, class T> void pack_grid(const field<N, T>& f, const grid<N>& g,
                                         std::vector<std::byte>& out) {
  std::size_t at = out.size();
  out.resize(at + static_cast<std::size_t>(g.total_extent()) * sizeof(T));
  for_each_run(f, g, [&](const T* first, std::int64_t count) {
    std::memcpy(out.data() + at, first, static_cast<std::size_t>(count) * sizeof(T));
    at += static_cast<std::size_t>(count) * sizeof(T);
  });
}
template <int N, class T> const std::byte* unpack_grid(const field<N, T>& f, const grid<N>& g,
                                                       const std::byte* in) {
  if constexpr (!std::is_const_v<T>)
    for_each_run(f, g, [&](T* first, std::int64_t count) {
      std::memcpy(first, in, static_cast<std::size_t>(count) * sizeof(T));
      in += static_cast<std::size_t>(count) * sizeof(T);
    });
  return in;
}

} // namespace s2p::rt
