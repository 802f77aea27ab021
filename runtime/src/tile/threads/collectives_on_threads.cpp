// Ring collectives on the `threads` backend. The ring order (which fragment each tile sends
// in each step) is the one <seq2par/collectives.h> executes sequentially, so every backend
// combines the same values in the same order.
#include "tile/runners.h"

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

namespace s2p::rt {

namespace {

std::int64_t fragment_begin(std::int64_t k, std::int64_t elements, std::int64_t tiles) {
  return k * elements / tiles;
}
std::int64_t modulo(std::int64_t a, std::int64_t n) {
  return ((a % n) + n) % n;
}

} // namespace

// Each tile a host thread; per step: post the outgoing fragment, barrier, combine (or store)
// the predecessor's fragment, barrier.
void run_collective_on_threads(const tile_kernel_info& info, const collective_args& args) {
  const std::int64_t n = info.tiles, e = args.elements_per_tile;
  const std::size_t esize = args.element_bytes;
  auto* rows = static_cast<std::byte*>(args.rows);
  std::vector<std::vector<std::byte>> mailbox(static_cast<std::size_t>(n));
  std::barrier sync(n);
  auto phase = [&](std::int64_t tile, std::int64_t steps, auto fragment_of, bool combine) {
    for (std::int64_t s = 0; s < steps; ++s) {
      const std::int64_t k = fragment_of(tile, s);
      const std::int64_t begin = fragment_begin(k, e, n),
                         count = fragment_begin(k + 1, e, n) - begin;
      auto& box = mailbox[static_cast<std::size_t>(tile)];
      box.resize(static_cast<std::size_t>(count) * esize);
      std::memcpy(box.data(), rows + (tile * e + begin) * static_cast<std::int64_t>(esize),
                  box.size());
      sync.arrive_and_wait();
      const std::int64_t from = modulo(tile - 1, n);
      const std::int64_t kf = fragment_of(from, s);
      const std::int64_t fbegin = fragment_begin(kf, e, n),
                         fcount = fragment_begin(kf + 1, e, n) - fbegin;
      std::byte* mine = rows + (tile * e + fbegin) * static_cast<std::int64_t>(esize);
      const auto& received = mailbox[static_cast<std::size_t>(from)];
      if (combine)
        args.combine(mine, received.data(), static_cast<std::size_t>(fcount));
      else
        std::memcpy(mine, received.data(), received.size());
      sync.arrive_and_wait();
    }
  };
  auto reduce_scatter_fragment = [n](std::int64_t i, std::int64_t s) {
    return modulo(i - s, n);
  };
  auto all_gather_fragment = [n](std::int64_t i, std::int64_t s) {
    return modulo(i + 1 - s, n);
  };
  std::vector<std::thread> threads;
  for (std::int64_t tile = 0; tile < n; ++tile) {
    threads.emplace_back([&, tile] {
      s2p::detail::current_tile = static_cast<int>(tile);
      if (args.kind != collective_kind::all_gather)
        phase(tile, n - 1, reduce_scatter_fragment, true);
      if (args.kind != collective_kind::reduce_scatter)
        phase(tile, n - 1, all_gather_fragment, false);
    });
  }
  for (auto& t : threads)
    t.join();
}

} // namespace s2p::rt
