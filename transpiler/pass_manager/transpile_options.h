// Everything that decides what seq2par generates for a kernel, apart from the input itself:
// the options of the passes, of multi-tile planning, of the dumps and of formatting. Its
// serialization is the incremental cache's fingerprint of "how", so an option added here is
// part of the fingerprint as soon as `to_json` names it (tests/transpiler/transpile_options_test.cpp
// checks every field; add the new one there too).
#pragma once

#include "dump/dumps.h"
#include "passes/warp_split.h"

#include <nlohmann/json.hpp>
#include <seq2par/sim/machine_defaults.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace s2p::pass_manager {

// The fabric a multi-tile kernel is compiled for.
struct FabricTarget {
  // A multi-tile kernel may span at most this many tiles (default: one built-in chip).
  int tiles = static_cast<int>(sim::kDefaultTilesPerChip);
  std::string description; // where `tiles` came from, for messages (--fabric)
  std::uint32_t tiles_per_chip = sim::kDefaultTilesPerChip; // collective templates' chips
  std::string file;                     // --fabric: forall templates are planned on it
  // A tile runs at most this many warps at once (the fabric file's tile threads, or the
  // simulator's default): a kernel split into more is refused, as its launch would be.
  int hardware_threads = static_cast<int>(sim::kDefaultHardwareThreads);
};

// --extents: kernel -> field parameter -> extent, instead of those its calls pass.
using GivenExtents = std::map<std::string, std::map<std::string, std::vector<std::int64_t>>>;

// --plan: resource-map weights and usable tiles as a tuning plan (tuning/plan.h) sets them, by
// kernel and map variable; applied to the kernel before planning and emission
// (pass_manager/plan_overrides.h).
struct MapWeights {
  std::string map;
  std::vector<double> weights; // one per usable tile (all the map's tiles when none are listed)
  std::string plan_file; // where they came from, for the generated code's comment and messages
  // The map's tiles that get segments, ascending (a failed tile left out); empty: all of them.
  std::vector<int> usable_tiles = {};
  friend bool operator==(const MapWeights&, const MapWeights&) = default;
};
using MapWeightOverrides = std::map<std::string, std::vector<MapWeights>>;

// --plan: intrinsic calls moved onto another warp (a tuning plan's warp overrides), by kernel.
// `op` names the calls: a source line ("77"), a file and line ("tile_gemm.cpp:77"), or an
// intrinsic (every call of "multiply_add"); in a multi-tile kernel, the calls of its tasks.
struct CallWarp {
  std::string op;
  int warp = 0;
  std::string plan_file;
  friend bool operator==(const CallWarp&, const CallWarp&) = default;
};
using WarpOverrides = std::map<std::string, std::vector<CallWarp>>;

// --plan: tile steps first..first+count-1 of a multi-tile kernel fused into one forall (a
// tuning plan's fusions), by kernel; applied to the kernel before planning
// (pass_manager/fuse_foralls.h).
struct StepFusion {
  int first = 0;
  int count = 0;
  std::string plan_file;
  friend bool operator==(const StepFusion&, const StepFusion&) = default;
};
using FusionOverrides = std::map<std::string, std::vector<StepFusion>>;

// --plan: a forall whose body writes several fields dealt into `parts` consecutive foralls (a
// tuning plan's splits, loop fission), by kernel; `step` is the kernel's step as written (as
// the plan's `steps` number it); `parts` 0: one per statement that writes a field
// (pass_manager/split_foralls.h).
struct StepSplit {
  int step = 0;
  int parts = 0;
  std::string plan_file;
  friend bool operator==(const StepSplit&, const StepSplit&) = default;
};
using SplitOverrides = std::map<std::string, std::vector<StepSplit>>;

// --plan: an intrinsic's calls in a kernel run as another of its declared variants
// (S2P_VARIANTS; a tuning plan's "variants"), by kernel (pass_manager/substitute_variants.h).
// `index` is the entry's position in the plan's list, for messages naming the field.
struct VariantUse {
  std::string op;
  std::string variant;
  std::size_t index = 0;
  std::string plan_file;
  friend bool operator==(const VariantUse&, const VariantUse&) = default;
};
using VariantOverrides = std::map<std::string, std::vector<VariantUse>>;

// --plan: tunable constants (S2P_TUNABLE) set to other values than written, by name; applied
// by the driver to the input's text before parsing (driver/tunables.h).
struct TunableValue {
  std::int64_t value = 0;
  std::string plan_file;
  friend bool operator==(const TunableValue&, const TunableValue&) = default;
};
using TunableValues = std::map<std::string, TunableValue>;

// What the tuning plans given with --plan decide (driver/plan_option.h reads them): one
// structure, so the command line and `seq2par tune` hand every decision to the passes at once
// and a decision added here cannot be forgotten by one of them.
struct TuningDecisions {
  MapWeightOverrides map_weights;
  WarpOverrides warps;
  FusionOverrides fusions;
  SplitOverrides splits;
  VariantOverrides variants;
  TunableValues tunables; // of every plan: they are per input file, not per kernel
};

struct TranspileOptions {
  passes::WarpSplitOptions passes;
  FabricTarget fabric;
  GivenExtents given_extents;
  TuningDecisions decisions;
  std::vector<dump::DumpKind> dumps;
  // --dump-after: the passes (pass_manager/pass_registry.h) after which the IR is written.
  std::vector<std::string> dump_after;
  std::string style = "file"; // libFormat style of generated code ("file": the input's)
};

// Every field, by name. The fabric file's content is not read here (the driver adds it to
// the fingerprint: templates are planned on what the file says, not on its name).
nlohmann::ordered_json to_json(const TranspileOptions& options);

} // namespace s2p::pass_manager
