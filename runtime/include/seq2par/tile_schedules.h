// <seq2par/tile_schedules.h> — a forall's owner-copy program as a seq2par.schedule/1, and
// where its tiles sit on the fabric. The runtime writes this schedule when the kernel runs;
// seq2par writes the same one at transpile time as the kernel's template when it knows the
// fields' extents. Needs the fabric simulator's headers (not for generated code).
#pragma once

#include <seq2par/sim/fabric.h>
#include <seq2par/tile_program.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace s2p::rt {

// Chips a launch of `tiles` uses on `fabric`: tile t on chip t / (tiles / chips).
// `even_split`: the fewest chips that split the tiles evenly (the ring generators need it).
std::uint32_t chips_for(const sim::Fabric& fabric, std::uint32_t tiles, bool even_split);

// Tiles per chip of a forall's placement: whole chips of the fabric, or all on one.
std::uint32_t tiles_per_chip_for(const sim::Fabric& fabric, std::uint32_t tiles);

// The built-in chip, repeated as often as `tiles` needs (what runs without a fabric file).
sim::Fabric default_fabric_for(std::uint32_t tiles);

// The program as a schedule: superstep 1 exchanges the moves (send cycles list-scheduled so
// each tile's port carries one stream at a time), superstep 2 runs the `forall` codelet on
// every tile, a third sends stolen tasks' results home.
// `tile_memory_from_fields`: on the built-in fabric, tiles grow to hold the fields (as
// `s2p-sim gen` does); a user's fabric is taken as it is.
nlohmann::ordered_json forall_schedule(const std::string& kernel, int tiles,
                                       const tile_program& program, const sim::Fabric& fabric,
                                       bool tile_memory_from_fields);

// A collective launch: the ring over `tiles` tiles, `bytes_per_tile` in each tile's row.
struct ring_launch {
  std::string kernel;
  std::uint32_t tiles = 0;
  std::string kind;         // "allreduce", "reduce-scatter" or "all-gather"
  std::string element_type; // "f32", ...
  std::string op = "sum";   // "sum", "prod", "max", "min"; not read for an all-gather
  std::uint64_t bytes_per_tile = 0;
};

// The ring schedule of a collective launch, as `s2p-sim gen` writes it. The ring splits its
// tiles evenly over chips: the built-in fabric (`fabric_file` empty) gets the chips that
// needs, and its tiles the memory the rows need; a fabric file without enough chips is an
// error. `fabric` is updated to what the schedule runs on.
nlohmann::ordered_json ring_schedule(const ring_launch& launch, sim::Fabric& fabric,
                                     const std::string& fabric_file);

} // namespace s2p::rt
