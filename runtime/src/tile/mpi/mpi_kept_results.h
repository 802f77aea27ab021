// Results kept on the mpi ranks inside a multi-tile kernel (<seq2par/runtime.h>, kernel_scope):
// which rank holds the current values of which part of each field a step wrote, the fetch of
// what a launch's share reads from their owners, and the gather of everything when the kernel
// returns (or before a launch that needs every field whole on every rank).
#pragma once

#include "tile/mpi/mpi_exchange.h"
#include "tile/mpi/mpi_session.h"

#include <seq2par/runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace s2p::rt::mpi {

// Every rank keeps the same list: every decision below is taken alike on every rank, from what
// every rank knows (the launch, the dealing of its parts), so the messages match.
class kept_results {
public:
  void enter() { depth_.fetch_add(1, std::memory_order_relaxed); }
  // Whether this left the outermost kernel (whose end gathers what is kept: gather_all).
  bool leave() { return depth_.fetch_sub(1, std::memory_order_relaxed) == 1; }
  bool inside_kernel() const { return depth_.load(std::memory_order_relaxed) > 0; }
  bool empty() const { return kept_.empty(); }

  // Before a global-view launch with parts [0, count) dealt to the ranks: gathers what the
  // launch cannot read in place (a kept field it writes with other parts, or reads through
  // another view than its own), then brings each rank the kept elements its share reads.
  superstep_traffic fetch(const kept_launch& launch, std::int64_t count, const session& s);
  // After it: the fields it wrote are kept, each rank holding its share's part.
  void keep(const kept_launch& launch, std::int64_t count, const session& s);
  // Every rank receives the whole of every kept field.
  superstep_traffic gather_all(const session& s);

private:
  struct kept_field {
    field_memory field;
    std::vector<memory_box> part_of_rank; // the part each rank holds current
  };
  superstep_traffic gather(std::vector<bool> which, const session& s);
  superstep_traffic exchange_reads(const kept_launch& launch, std::int64_t count,
                                   const session& s);

  // Atomic: on the other backends host threads may call kernels at once (they only count).
  std::atomic<int> depth_{0};
  std::vector<kept_field> kept_; // their memory never overlaps
  std::vector<std::byte> send_buffer_, receive_buffer_;
};

kept_results& kept();

// Rank r's contiguous share of [0, count): [count * r / R, count * (r + 1) / R).
std::pair<std::int64_t, std::int64_t> share_of(std::int64_t count, int rank, int ranks);

} // namespace s2p::rt::mpi
