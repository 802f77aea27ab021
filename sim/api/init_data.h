// Deterministic input data, result verification for collectives, and memory digests.
#pragma once

#include <string>

#include "engine/tile_memory.h"
#include "seq2par/sim/simulation.h"
#include "support/worker_pool.h"

namespace s2p::sim::detail {

/// Fills every held buffer: "input" ones with `pattern`, the others with zeros (so that digests
/// of never-written bytes are deterministic too). Tiles are filled by the pool's threads (each
/// tile's bytes depend only on the tile, so the split does not matter).
void fill_buffers(TileMemory& memory, const Resolver& resolver, InitPattern pattern,
                  std::uint64_t init_seed, WorkerPool& pool);

/// Checks a collective's result against inputs regenerated from the pattern and seed. In a
/// distributed run (`ranks`) each rank checks its own tiles and every rank gets the whole
/// result: the counts summed, the first mismatch of the lowest tile.
[[nodiscard]] VerifyResult verify_collective(const TileMemory& memory, const Schedule& schedule,
                                             InitPattern pattern, std::uint64_t init_seed,
                                             Ranks* ranks = nullptr);

/// One hash over every tile's buffers: each tile's hashed on its own (on the pool's threads),
/// the tile hashes folded in tile order; in a distributed run the folded state goes from rank to
/// rank in tile order, so the digest is the single process's, whatever the threads or ranks.
[[nodiscard]] std::string digest(const TileMemory& memory, const Schedule& schedule,
                                 WorkerPool& pool, Ranks* ranks = nullptr);

} // namespace s2p::sim::detail
