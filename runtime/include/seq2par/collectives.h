// <seq2par/collectives.h> — collectives over the tiles of a multi-tile kernel:
// ring reduce-scatter, all-gather and all-reduce, with their sequential meaning.
//
// Data: a rank-2 field whose row t is tile t's vector (extent[0] = tiles). A row of E
// elements is cut into N = tiles fragments, fragment k = [k*E/N, (k+1)*E/N). Reduce-scatter
// step s (0-based, N-1 steps): tile i sends fragment (i - s) mod N to tile (i + 1) mod N,
// which combines it into its own copy; afterwards tile i holds the complete fragment
// (i + 1) mod N (the reference ring: fragment k complete on tile (k - 1) mod N).
// All-gather step s: tile i sends fragment (i + 1 - s) mod N to (i + 1) mod N, which
// stores it. The sequential versions below execute exactly these steps, so every backend
// combines in the same order and results are bitwise identical, floats included.
//
// Where a kernel's tiles span chips, the fabric simulator (and seq2par's schedule template)
// runs an all-reduce whose combine is exact - an integer element type: sum and product wrap
// modulo 2^bits, min and max pick an operand - as a hierarchical collective (rings within each
// chip, then across chips), which combines in another order: every order gives these bits
// (an integer fold that overflows is undefined here, as in any C++ loop). An all-gather alone,
// of any type, runs hierarchically too, from the placement below: it only copies, so its rows
// are these bit for bit. So does an integer reduce-scatter whose partials nothing reads (the
// kernel's next step all-gathers the same rows: seq2par passes s2p::rt::ring_partials::
// overwritten), leaving each fragment where the flat ring does. Float all-reduces, and any
// other reduce-scatter (its rows hold the flat ring's partial sums outside the fragment a tile
// owns), always run the flat ring's order. The rule is s2p::rt::collective_algorithm
// (<seq2par/planning/ring_schedule.h>).
#pragma once

#include <seq2par/distribution.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace s2p {

// Combine operations (associative, commutative); `name()` is the schedule's spelling.
struct sum {
  template <class T> constexpr T operator()(T a, T b) const { return a + b; }
  static constexpr const char* name() { return "sum"; }
};
struct product {
  template <class T> constexpr T operator()(T a, T b) const { return a * b; }
  static constexpr const char* name() { return "prod"; }
};
struct maximum {
  template <class T> constexpr T operator()(T a, T b) const { return a < b ? b : a; }
  static constexpr const char* name() { return "max"; }
};
struct minimum {
  template <class T> constexpr T operator()(T a, T b) const { return b < a ? b : a; }
  static constexpr const char* name() { return "min"; }
};

namespace detail {

inline std::int64_t fragment_begin(std::int64_t k, std::int64_t elements, std::int64_t tiles) {
  return k * elements / tiles;
}
inline std::int64_t modulo(std::int64_t a, std::int64_t n) {
  return ((a % n) + n) % n;
}

template <class T> void check_rows(const field<2, T>& per_tile, const char* what) {
  if (per_tile.extent()[0] < 1 || per_tile.extent()[1] < per_tile.extent()[0])
    throw std::invalid_argument(
        std::string("s2p::") + what +
        ": need one row per tile and at least one element per tile in each row (" +
        std::to_string(per_tile.extent()[0]) + " rows of " + std::to_string(per_tile.extent()[1]) +
        ")");
}

// One ring step: every tile i sends fragment `fragment(i)` of its row to tile i + 1 at once,
// which applies `combine(mine, received)` element by element.
template <class T, class FragmentOf, class Combine>
void ring_step(const field<2, T>& rows, FragmentOf fragment, Combine combine) {
  const std::int64_t n = rows.extent()[0], e = rows.extent()[1];
  std::vector<std::vector<T>> sent(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = fragment(i);
    for (std::int64_t x = fragment_begin(k, e, n); x < fragment_begin(k + 1, e, n); ++x)
      sent[static_cast<std::size_t>(i)].push_back(rows(i, x));
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = fragment(i), to = (i + 1) % n;
    const auto& data = sent[static_cast<std::size_t>(i)];
    for (std::int64_t x = fragment_begin(k, e, n), j = 0; x < fragment_begin(k + 1, e, n); ++x, ++j)
      rows(to, x) = combine(rows(to, x), data[static_cast<std::size_t>(j)]);
  }
}

} // namespace detail

template <class T, class Op> void reduce_scatter(const field<2, T>& per_tile, Op op) {
  detail::check_rows(per_tile, "reduce_scatter");
  const std::int64_t n = per_tile.extent()[0];
  for (std::int64_t s = 0; s + 1 < n; ++s)
    detail::ring_step(
        per_tile, [&](std::int64_t i) { return detail::modulo(i - s, n); }, op);
}

template <class T> void all_gather(const field<2, T>& per_tile) {
  detail::check_rows(per_tile, "all_gather");
  const std::int64_t n = per_tile.extent()[0];
  for (std::int64_t s = 0; s + 1 < n; ++s)
    detail::ring_step(
        per_tile, [&](std::int64_t i) { return detail::modulo(i + 1 - s, n); },
        [](T, T received) { return received; });
}

template <class T, class Op> void all_reduce(const field<2, T>& per_tile, Op op) {
  reduce_scatter(per_tile, op);
  all_gather(per_tile);
}

} // namespace s2p
