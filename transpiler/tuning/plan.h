// A tunable plan: the decisions about one multi-tile kernel that a tuning rule may change,
// made explicit so that they can be overridden without editing the kernel's source. A plan
// file (`foo.<kernel>.plan.json`, format `seq2par.plan/1`) records them; `seq2par --plan`
// transpiles with it (driver/plan_option.h), and the rule evaluator (tuning/apply.h) produces
// a new one from feedback.
//
// What transpiling with a plan applies today: the maps' weights and usable tiles (a failed tile
// left out) and the warp overrides (pass_manager/plan_overrides.h), the fusions
// (pass_manager/fuse_foralls.h), and the tunable constants (ring depths among them;
// driver/tunables.h). Protocol, block sizes, tile counts, ring depths of pools whose depth is
// not a tunable are recorded decisions that the emitter does not read yet; a rule that makes
// them changes the plan file only (--plan warns). Splits (pass_manager/split_foralls.h) and
// variants (pass_manager/substitute_variants.h) are applied.
#pragma once

#include "ir/diagnostic.h"
#include "ir/kernel.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::tuning {

inline constexpr std::string_view kPlanFormat = "seq2par.plan/1";

// One resource map of the kernel, named by its variable (and the line it is built on).
struct MapPlan {
  std::string name;
  std::string at; // "file:line" of its declaration, informational
  ir::MapProtocol protocol = ir::MapProtocol::Block;
  bool columns = false;
  std::vector<std::int64_t> block; // segment extent (block_block, block_cyclic); empty: none
  int tiles = 0;                   // tiles the map deals segments to
  std::vector<double> weights;     // one per tile of the map; empty: all equal
  // Fabric tiles the map's tiles 0..tiles-1 run on; empty: tiles 0..tiles-1 themselves.
  std::vector<int> usable_tiles;
  friend bool operator==(const MapPlan&, const MapPlan&) = default;
};

// A buffer pool's ring (pipeline) depth: how many slots its producer may run ahead. When the
// pool's slot count is a tunable constant (`pool.tensor<kDepth, N>`, S2P_TUNABLE), `tunable`
// names it and the depth is that tunable's value: setting one sets the other.
struct PoolPlan {
  std::string name;
  int ring_depth = 1;
  std::string tunable = {}; // empty: the depth is as written (not applied by --plan)
  friend bool operator==(const PoolPlan&, const PoolPlan&) = default;
};

// A tunable constant's value in the plan (S2P_TUNABLE; `seq2par --plan` compiles the kernel
// with it) and the range its declaration allows (informational: --plan checks the source's).
struct TunablePlan {
  std::int64_t value = 0;
  std::optional<std::int64_t> min, max;
  friend bool operator==(const TunablePlan&, const TunablePlan&) = default;
};

// Moves intrinsic calls onto another warp (applied by --plan: pass_manager/plan_overrides.h).
struct WarpOverride {
  std::string op; // a line, "file:line", or an intrinsic (each of its calls)
  int warp = 0;
  friend bool operator==(const WarpOverride&, const WarpOverride&) = default;
};

// A tile step of the kernel as the plan's patterns see it (not overridable).
struct StepPlan {
  ir::TileStep::Kind kind = ir::TileStep::Kind::Forall;
  std::string map; // a forall's output map; empty for collectives
  // The first step this one can run fused with: steps fuses_from..this one are foralls that
  // `--plan` fuses into one (pass_manager/fuse_foralls.h), and so is any run inside them; this
  // step's own index when it fuses with none before it. -1: not known (a plan file that does
  // not say); the patterns then take the kinds and maps alone.
  int fuses_from = -1;
  // The most parts `--plan` can split the step into (pass_manager/split_foralls.h: a forall whose
  // body writes several fields, one part per statement that writes); 1: it cannot be split.
  int max_parts = 1;
  friend bool operator==(const StepPlan&, const StepPlan&) = default;
};

// Steps first..first+count-1 run as one superstep's compute (operation fusion).
struct FusionDecision {
  int first = 0;
  int count = 0;
  friend bool operator==(const FusionDecision&, const FusionDecision&) = default;
};

// Step `step` (as written) runs as `parts` consecutive foralls (operation splitting, applied
// by --plan: pass_manager/split_foralls.h).
struct SplitDecision {
  int step = 0;
  int parts = 2;
  friend bool operator==(const SplitDecision&, const SplitDecision&) = default;
};

// The declared intrinsic variant chosen for an operation (operation substitution, applied by
// --plan: pass_manager/substitute_variants.h): `op`'s calls call `variant`.
struct VariantChoice {
  std::string op;
  std::string variant;
  friend bool operator==(const VariantChoice&, const VariantChoice&) = default;
};

struct KernelPlan {
  std::string kernel;
  std::string source;          // the input file, informational
  int tiles = 0;               // S2P_TILES, or the tile count the plan runs on
  std::vector<int> failed_tiles; // fabric tiles known to be unusable
  std::vector<StepPlan> steps;
  std::vector<MapPlan> maps;
  std::vector<PoolPlan> pools;
  std::map<std::string, TunablePlan> tunables; // by name
  std::vector<WarpOverride> warps;
  std::vector<FusionDecision> fusions;
  std::vector<SplitDecision> splits;
  std::vector<VariantChoice> variants;
  // The file's S2P_VARIANTS groups, each as declared (first: what the kernel calls); what a
  // `substitute` rule may choose from. Informational: --plan checks the source's.
  std::vector<std::vector<std::string>> variant_groups;
  // Rule variables carried from one tuning round to the next (set_variable actions).
  std::map<std::string, double> variables;
  friend bool operator==(const KernelPlan&, const KernelPlan&) = default;
};

// The plan the kernel has as written: its maps whose sizes are constants, its pools (depth
// 1), its steps; no overrides.
KernelPlan plan_from_kernel(const ir::Kernel& kernel);

MapPlan* find_map(KernelPlan& plan, std::string_view name);
const MapPlan* find_map(const KernelPlan& plan, std::string_view name);
// The fabric tile the map's tile `t` runs on.
int fabric_tile(const MapPlan& map, int t);

// Whether a map of the plan deals segments to a failed tile (the plan's failed_tiles or
// `also_failed`, the feedback's): such a plan computes on hardware that is gone, so the tuning
// loop never keeps it as its best nor rolls back a round that stopped using the tile.
bool uses_failed_tiles(const KernelPlan& plan, const std::vector<int>& also_failed);

// What changed in the kernel since `recorded` was made from it, against the plan it has now
// (`now`, plan_from_kernel): maps built or no longer built, a map's protocol, block or tile
// count, the steps, the pools. Empty when the plan still matches; a plan file that no longer
// matches its source is a warning naming these, never a silent mis-apply. A plan that lists
// no maps (or no steps) leaves them as written: nothing to compare.
std::vector<std::string> plan_changes(const KernelPlan& recorded, const KernelPlan& now);
// What in a report (`tiles` fabric tiles) does not fit the plan: a map dealt to more tiles.
std::vector<std::string> report_changes(const KernelPlan& plan, int tiles);

// `seq2par.plan/1` JSON; to_json then plan_from_json gives the same plan back.
nlohmann::ordered_json to_json(const KernelPlan& plan);
// Reads a plan; a bad field is an error at `source` naming the field, and nothing is returned.
std::optional<KernelPlan> plan_from_json(const nlohmann::ordered_json& json,
                                         const std::string& source, ir::Diagnostics& diagnostics);
std::optional<KernelPlan> plan_from_text(std::string_view text, const std::string& source,
                                         ir::Diagnostics& diagnostics);

// A step kind by the library's name of its call (ir::library_name): "forall", "all_reduce".
std::optional<ir::TileStep::Kind> parse_step_kind(std::string_view name);

// The variant `op`'s calls run as in `plan` (op itself when the plan chooses none), and the
// group that declares op (nullptr when the plan knows none).
std::string chosen_variant(const KernelPlan& plan, const std::string& op);
const std::vector<std::string>* variant_group(const KernelPlan& plan, const std::string& op);

} // namespace s2p::tuning
