// A kernel's warp-split plan, region by region. Straight code and loops with constant trip
// counts are expanded; a loop whose trip count is only known at run time stays a loop
// (a symbolic loop, planned on one period of its dependence pattern), and so does a long
// constant loop whose expansion would not fit a tile. Regions are separated by fences, so each
// is planned on its own.
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace s2p::ir {

// What a channel carries: a data dependence, a freed resource, or the fence between regions.
enum class ChannelKind { Data, Resource, Fence };
// One letter per channel ('d', 'r', 'f'), as the runtime's channel table spells it.
std::string channel_kind_letters(const std::vector<ChannelKind>& kinds);

// Cross-warp edges of a symbolic loop's steady state, relative to the destination
// iteration t: from body call `from_template` in iteration t - distance to body call
// `to_template` in iteration t. One channel per family; its k-th signal is the source of
// the k-th instance.
struct EdgeFamily {
  int from_template = -1;
  int to_template = -1;
  std::int64_t distance = 0;
  EdgeKind kind = EdgeKind::Data;
  int residue = -1;       // destination iterations t with t % period == residue; -1: all
  int source_residue = 0; // (residue - distance) mod period
  int channel = 0;
  std::vector<SpaceRanges> labels; // of one instance, for comments and dumps

  // The phase the waiter in destination iteration `t` needs (<= 0: no such source).
  std::int64_t phase_for_destination(std::int64_t t, int period) const {
    if (residue < 0)
      return t - distance + 1;
    return (t - distance - source_residue) / period + 1;
  }
};

struct SymbolicOp {
  enum class Kind { Wait, Call, Signal };
  Kind kind = Kind::Call;
  int body_call = -1; // template index
  int family = -1;    // Wait / Signal
};

struct SymbolicLoop {
  const ScheduleNode* loop = nullptr;
  std::string var;      // loop variable (IR name); its C++ type is loop->call... see var_type
  std::string var_type; // as declared ("int")
  std::int64_t init = 0;
  std::int64_t step = 1;
  Expr bound;           // exclusive; kernel symbols only (a constant for a kept constant loop)
  // A loop whose trip count is constant, kept as a loop because its expansion does not fit a
  // tile (passes/build_cdfg.h, CdfgOptions::keep_long_constant_loops): that count.
  std::optional<std::int64_t> constant_trips;
  int period = 1;       // iterations after which buffer use repeats
  int window = 0;       // iterations expanded for the analysis
  int body_size = 0;    // calls per iteration
  int steady_start = 0; // a window iteration (multiple of period) in the steady state
  std::set<int> whole_refs; // tensor_refs the loop orders as one unit (window range {0, 1})
  std::vector<EdgeFamily> families;
  // Per warp, per residue s in [0, period): the ops of an iteration t with t % period == s.
  struct Warp {
    int warp = 0;
    std::vector<std::vector<SymbolicOp>> residues;
  };
  std::vector<Warp> warps;

  // The window node of body call `b` in iteration `t` (nodes are iteration-major).
  int node_of(int b, std::int64_t t) const { return static_cast<int>(t * body_size + b); }
};

struct Region {
  enum class Kind { Expanded, SymbolicLoop };
  Kind kind = Kind::Expanded;
  Graph graph;                    // the expanded calls, or the symbolic loop's analysis window
  std::vector<WarpProgram> warps; // Expanded
  SymbolicLoop loop;              // SymbolicLoop
};

} // namespace s2p::ir
