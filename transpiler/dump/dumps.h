// `--dump=...`: every pass's result as JSON (for tests and tools) and Graphviz DOT (for
// people). Format names are versioned: "seq2par.<pass>/1".
#pragma once

#include "ir/kernel.h"
#include "passes/warp_split.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::dump {

// The warp-split stages, and (TileSteps) a multi-tile kernel's steps, maps and plan and
// (Access) its foralls' access relations. Each kernel gets the kinds that apply to it.
enum class DumpKind { ScheduleTree, Cdfg, Cdrfg, Channels, Warps, TileSteps, Access };

// "schedule-tree", "cdfg", "cdrfg", "channels", "warps", "tile-steps", "access"
std::string_view name_of(DumpKind kind);
std::optional<DumpKind> parse_dump_kind(std::string_view name);
const std::vector<DumpKind>& all_dump_kinds();

bool applies_to_tile_kernels(DumpKind kind);

// Warp kernels' dumps (every kind but TileSteps).
nlohmann::ordered_json to_json(DumpKind kind, const ir::Kernel& kernel,
                               const passes::WarpSplit& plan);
std::string to_dot(DumpKind kind, const ir::Kernel& kernel, const passes::WarpSplit& plan);

} // namespace s2p::dump
