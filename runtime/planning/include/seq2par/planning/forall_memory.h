// <seq2par/planning/forall_memory.h> — does a forall fit in its tiles' memory?
//
// Tile by tile, the tile memory allocator (<seq2par/planning/tile_memory.h>) places what the
// launch holds, at each tile's own sizes: every field's owned blocks, live for the whole launch
// (inputs are loaded before it, results stored after it), and the copies the exchange brings in
// (owner-copy moves, work stealing's fetches, shared structures' multicasts), live from that
// exchange to the compute that reads them (a thief's copy of output blocks until the returns).
// Tile memory is a fabric parameter: a tile that does not fit is an out-of-memory verdict, never
// a larger tile. seq2par reports it at the forall when it plans the schedule template; the
// runtime, when it plans a launch, after the simulator has run it (so its report exists).
#pragma once

#include <seq2par/planning/tile_memory.h>
#include <seq2par/tile_program.h>

#include <string>

namespace s2p::rt {

// The forall's superstep program as liveness sees it: the exchange that brings copies in, the
// compute, and the returns of stolen tasks' results.
inline constexpr std::uint32_t kForallExchangeStep = 0;
inline constexpr std::uint32_t kForallComputeStep = 1;
inline constexpr std::uint32_t kForallReturnsStep = 2;

struct forall_memory {
  memory_problem problem; // one variable per held part (owned, received) of a field per tile
  memory_layout layout;
  std::vector<std::size_t> field_of; // per variable: its field in the program
  bool ok() const { return layout.ok(); }
};

forall_memory check_forall_memory(const tile_program& program, const memory_params& params);

// The error for a forall that does not fit (empty when it fits): the first tile that does not,
// its peak live bytes against its SRAM, the live set at the peak (biggest first, owned or
// received), what a smaller block would save (half the owned blocks; the received copies,
// which smaller memory blocks shrink), what sharing would save (a replicated or wholly held
// read-only field as an S2P_SHARED structure on a master tile), and how many tiles do not fit.
std::string out_of_memory_message(const forall_memory& memory, const tile_program& program);

} // namespace s2p::rt
