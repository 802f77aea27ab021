// `--dump=...`: every pass's result as JSON (for tests and tools) and Graphviz DOT (for
// people). Format names are versioned: "seq2par.<pass>/1".
#pragma once

#include "ir/kernel.h"
#include "passes/pipeline.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2p::dump {

enum class DumpKind { ScheduleTree, Cdfg, Cdrfg, Channels, Warps };

// "schedule-tree", "cdfg", "cdrfg", "channels", "warps"
std::string_view name_of(DumpKind kind);
std::optional<DumpKind> parse_dump_kind(std::string_view name);
const std::vector<DumpKind>& all_dump_kinds();

nlohmann::ordered_json to_json(DumpKind kind, const ir::Kernel& kernel,
                               const passes::KernelPlan& plan);
std::string to_dot(DumpKind kind, const ir::Kernel& kernel, const passes::KernelPlan& plan);

} // namespace s2p::dump
