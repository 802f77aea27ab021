// <seq2par/planning/shared_structures.h> — shared read-only structures on master tiles.
//
// A structure every tile's compute reads and nothing writes for the whole kernel (a lookup
// table, filter weights: an `S2P_SHARED` kernel parameter) need not sit in every tile's memory
// for the whole kernel. Instead a few *master* tiles (fewer than one third of the tiles; at most
// `max_masters`, default three) hold it; in the exchange before each run of compute phases that
// read it, its master *multicasts* it into one compile-time address on every other tile
// (an equal-address set: the receive code carries one address), and receivers keep it only for
// that *period of use* — afterwards the allocator may place something else there (no run-time
// delete exists).
//
// Share or replicate is decided per structure by the chip's peak live memory: the largest, over
// tiles and supersteps, of the bytes live at once, counting the exchange code a shared structure
// costs (a send sequence on its master, a receive sequence on every receiver, per multicast).
// Structures are tried largest first, each at the candidate master that gives the lowest peak;
// then every shared structure whose replication would not raise the peak is replicated again,
// and nothing is shared unless the peak is lower than with everything replicated: sharing never
// costs memory. A structure smaller than its exchange code, or one read in every phase of
// tiles that all hold as much data, stays replicated. Masters are the tiles with the least live data (the tiles
// with free space hold what others receive).
//
// The superstep program the plan speaks of: compute phase p is superstep 2p + 1, after its
// exchange superstep 2p (where its multicasts run).
//
// Plain C++ over the tile memory allocator (<seq2par/planning/tile_memory.h>): the runtime plans
// with it when a kernel runs, seq2par and the tests at transpile time.
#pragma once

#include <seq2par/planning/tile_memory.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace s2p::rt {

// One shared structure as the kernel uses it.
struct shared_structure_use {
  std::string name;
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> phases; // the compute phases that read it
};

struct shared_structure_problem {
  std::uint32_t tiles = 0;
  std::uint32_t phases = 0; // compute phases of the kernel, in program order
  // Bytes of everything else a tile holds in each phase ([phase][tile]); missing rows or tiles
  // count as 0 (the runtime plans before it knows the fields: equal data on every tile).
  std::vector<std::vector<std::uint64_t>> data_bytes;
  std::vector<shared_structure_use> structures;
  memory_params params;
  std::uint32_t max_masters = 3;
  // Memory one exchange sequence takes (a send on the master, a receive on each receiver).
  std::uint64_t exchange_code_bytes = 64;
  // Replicate everything (the comparison the benchmark and the memory summary make).
  bool force_replicate = false;
};

enum class share_decision { shared, replicated };
const char* to_string(share_decision decision);

// A run of consecutive compute phases that read a shared structure: one multicast before
// `first_phase`, the receivers' copy live from that exchange to the compute of `last_phase`.
struct shared_period {
  std::uint32_t first_phase = 0;
  std::uint32_t last_phase = 0;
  live_range live; // supersteps
  std::uint64_t address = 0; // the receivers' copy, the same on every receiver
};

struct shared_structure_plan {
  std::string name;
  std::uint64_t bytes = 0;
  share_decision decision = share_decision::replicated;
  std::string reason; // why (what it saves or costs)
  std::uint32_t master = 0;                 // shared: the tile that holds it
  std::uint64_t master_address = 0;         // shared: its place on the master
  std::uint64_t replicated_address = 0;     // replicated: its place on tile 0
  std::vector<shared_period> periods;       // shared: one multicast each
  std::vector<std::uint32_t> receivers() const; // every tile but the master (needs tiles)
  std::uint32_t tiles = 0;
};

struct shared_structures_result {
  std::vector<shared_structure_plan> structures; // in the problem's order
  std::vector<std::uint32_t> masters;            // ascending
  std::uint64_t peak_bytes = 0;                  // the chip's peak live bytes with this plan
  std::uint64_t replicated_peak_bytes = 0;       // ... with every structure replicated
  std::vector<std::uint64_t> tile_peak_bytes;    // per tile, with this plan
  memory_problem memory;                         // what was allocated (tests check it)
  memory_layout layout;
  bool ok() const { return layout.ok(); }
};

// Decides, places masters and periods, and allocates every tile's memory (data, copies, code).
// A phase out of range or a structure read in no phase is a misuse (std::invalid_argument).
shared_structures_result plan_shared_structures(const shared_structure_problem& problem);

// The most master tiles `tiles` allows: fewer than one third of them, at most `max_masters`.
std::uint32_t master_limit(std::uint32_t tiles, std::uint32_t max_masters);

} // namespace s2p::rt
