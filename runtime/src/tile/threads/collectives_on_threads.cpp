// Ring collectives on the `threads` backend, in place. The ring order of <seq2par/collectives.h>
// combines each fragment along its own chain of tiles (fragment k: reduce-scatter step s adds
// tile k + s's partial into tile k + s + 1's; all-gather step s copies the complete fragment
// from tile k + s - 1 to tile k + s, indices mod N), and no step of one fragment touches
// another's elements. So each fragment's chain is replayed on its own, the fragments dealt to
// the in-place workers: the same combines in the same order as the sequential ring, bit for
// bit, with no thread per tile and no barriers.
#include "tile/runners.h"

#include <cstring>

namespace s2p::rt {

namespace {

std::int64_t fragment_begin(std::int64_t k, std::int64_t elements, std::int64_t tiles) {
  return k * elements / tiles;
}

} // namespace

void run_collective_on_threads(const tile_kernel_info& info, const collective_args& args) {
  const std::int64_t n = info.tiles, e = args.elements_per_tile;
  const auto esize = static_cast<std::int64_t>(args.element_bytes);
  auto* rows = static_cast<std::byte*>(args.rows);
  const auto at = [&](std::int64_t tile, std::int64_t element) {
    return rows + ((tile % n) * e + element) * esize;
  };
  run_parts_in_place(n, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t k = first; k < last; ++k) {
      const std::int64_t begin = fragment_begin(k, e, n);
      const auto count = static_cast<std::size_t>(fragment_begin(k + 1, e, n) - begin);
      if (args.kind != collective_kind::all_gather)
        for (std::int64_t s = 0; s + 1 < n; ++s)
          args.combine(at(k + s + 1, begin), at(k + s, begin), count);
      if (args.kind != collective_kind::reduce_scatter)
        for (std::int64_t s = 0; s + 1 < n; ++s)
          std::memcpy(at(k + s, begin), at(k + s + n - 1, begin), count * static_cast<std::size_t>(esize));
    }
  });
}

} // namespace s2p::rt
