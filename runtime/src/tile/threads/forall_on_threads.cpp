// A forall on the `threads` backend: each tile a host thread; the exchange copies between
// the tiles' buffers between two barriers (load -> exchange -> compute -> returns -> store).
#include "tile/runners.h"

#include <barrier>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

namespace s2p::rt {

void run_forall_on_threads(const tile_kernel_info& info, const tile_program& program) {
  const std::size_t tiles = static_cast<std::size_t>(info.tiles);
  std::vector<std::vector<std::vector<std::byte>>> memory(tiles);
  for (std::size_t t = 0; t < tiles; ++t)
    for (const auto& f : program.fields)
      memory[t].emplace_back(static_cast<std::size_t>(f.bytes_per_tile[t]));
  std::vector<std::vector<const tile_move*>> incoming(tiles), returning(tiles);
  for (const auto& m : program.moves)
    incoming[static_cast<std::size_t>(m.to_tile)].push_back(&m);
  for (const auto& m : program.returns)
    returning[static_cast<std::size_t>(m.to_tile)].push_back(&m);
  // The exchange on threads: each tile copies what comes to it out of the senders' buffers.
  auto copy_incoming = [&memory](const std::vector<const tile_move*>& moves) {
    for (const tile_move* m : moves)
      std::memcpy(
          memory[static_cast<std::size_t>(m->to_tile)][static_cast<std::size_t>(m->field)].data() +
              m->to_offset,
          memory[static_cast<std::size_t>(m->from_tile)][static_cast<std::size_t>(m->field)]
                  .data() +
              m->from_offset,
          static_cast<std::size_t>(m->bytes));
  };
  std::barrier sync(static_cast<std::ptrdiff_t>(tiles));
  std::vector<std::exception_ptr> errors(tiles);
  const std::vector<int> chip = forall_chips(info);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < tiles; ++t) {
    threads.emplace_back([&, t] {
      s2p::detail::current_tile = static_cast<int>(t);
      s2p::detail::current_chip = chip[t];
      const tile_memory mine = [&](int field) {
        auto& bytes = memory[t][static_cast<std::size_t>(field)];
        return tile_bytes{bytes.data(), bytes.size()};
      };
      // Every tile reaches every barrier, even after an error, so nobody waits forever.
      auto guarded = [&](auto&& step) {
        if (errors[t])
          return;
        try {
          step();
        } catch (...) {
          errors[t] = std::current_exception();
        }
      };
      guarded([&] { program.load(static_cast<int>(t), mine); });
      sync.arrive_and_wait();
      guarded([&] { copy_incoming(incoming[t]); });
      sync.arrive_and_wait();
      guarded([&] { program.compute(static_cast<int>(t), mine); });
      sync.arrive_and_wait();
      guarded([&] { copy_incoming(returning[t]); }); // stolen tasks' results, then store
      guarded([&] { program.store(static_cast<int>(t), mine); });
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (const auto& error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace s2p::rt
