// Seed 002's owner-copy protocol for `forall` over agile fields: every algorithmic block
// of the output is computed on the tile that owns it; every input element it reads that
// lives on another tile is brought there first, at memory-block granularity (touching one
// element moves its whole memory block), and a block already moved to a tile is not moved
// again. Inputs are read through index maps (identity, transpose, shifts), so the elements
// an output block needs form a rectangle.
//
// The plan becomes the exchange phase of the kernel's schedule and each tile's task list
// (also the work-stealing queues: a tile pops its own queue from the top and steals from
// the bottom of others').
#pragma once

#include <seq2par/distribution.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace s2p::passes {

// Input index = output index with axes permuted, plus an offset:
//   in[d] = out[source_axis[d]] + offset[d]
template <int N> struct IndexMap {
  std::array<int, N> source_axis{};
  std::array<std::int64_t, N> offset{};

  static IndexMap identity() {
    IndexMap m;
    for (int d = 0; d < N; ++d) m.source_axis[static_cast<std::size_t>(d)] = d;
    return m;
  }
  static IndexMap transpose() {
    static_assert(N == 2, "transpose is a rank-2 map");
    IndexMap m;
    m.source_axis = {1, 0};
    return m;
  }
  index<N> apply(const index<N>& i) const {
    index<N> out;
    for (int d = 0; d < N; ++d) out[d] = i[source_axis[static_cast<std::size_t>(d)]] + offset[static_cast<std::size_t>(d)];
    return out;
  }
  // The image of a rectangle (a rectangle: axes are only permuted and shifted).
  grid<N> apply(const grid<N>& g) const {
    grid<N> out;
    for (int d = 0; d < N; ++d) {
      const int s = source_axis[static_cast<std::size_t>(d)];
      out.offset[d] = g.offset[s] + offset[static_cast<std::size_t>(d)];
      out.size[d] = g.size[s];
    }
    return out;
  }
};

template <int N> struct InputAccess {
  std::string field;
  const resource_map<N>* map = nullptr;
  IndexMap<N> index = IndexMap<N>::identity();
  std::int64_t element_bytes = 8;
};

struct BlockMove {
  std::string field;
  std::vector<std::int64_t> block; // memory-block coordinates in the input
  int from_tile = 0;
  int to_tile = 0;
  std::int64_t bytes = 0;
};

struct Task {
  int tile = 0;
  std::vector<std::int64_t> block; // algorithmic-block coordinates in the output
};

struct OwnerCopyPlan {
  std::vector<Task> tasks;                // in segment order, row-major inside a segment
  std::vector<std::vector<Task>> queues;  // per tile, the same order (work-stealing queues)
  std::vector<BlockMove> moves;           // each (field, memory block, destination) once
  std::int64_t algorithmic_moves = 0;     // (task, remote input algorithmic block) pairs
  std::int64_t bytes = 0;                 // bytes the moves carry
  std::string error;                      // non-empty if an access leaves its field
};

template <int N>
OwnerCopyPlan plan_owner_copy(const resource_map<N>& output, const std::vector<InputAccess<N>>& inputs);

// The bytes any owner-computes plan must move at memory-block granularity, found by
// visiting every output element (an independent check of plan_owner_copy, for tests and
// benchmarks; cost grows with the number of elements).
template <int N>
std::int64_t minimum_block_bytes(const resource_map<N>& output, const std::vector<InputAccess<N>>& inputs);

} // namespace s2p::passes
