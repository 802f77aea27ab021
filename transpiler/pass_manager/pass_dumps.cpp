#include "pass_manager/pass_dumps.h"

#include "dump/dumps.h"
#include "dump/tile_dumps.h"

#include <algorithm>
#include <exception>

namespace s2p::pass_manager {
namespace {

std::string text_of(const nlohmann::ordered_json& json) {
  return json.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The dump that shows a warp plan as `pass` leaves it.
dump::DumpKind plan_dump(passes::WarpSplitPass pass) {
  using passes::WarpSplitPass;
  switch (pass) {
  case WarpSplitPass::CheckTileMemory: return dump::DumpKind::ScheduleTree;
  case WarpSplitPass::BuildCdfg: return dump::DumpKind::Cdfg;
  case WarpSplitPass::AddResourceEdges:
  case WarpSplitPass::RemoveRedundantEdges: return dump::DumpKind::Cdrfg;
  case WarpSplitPass::AllocateChannels: return dump::DumpKind::Channels;
  case WarpSplitPass::SplitWarps:
  case WarpSplitPass::VerifySync: return dump::DumpKind::Warps;
  }
  return dump::DumpKind::Warps;
}

} // namespace

bool PassDumps::wanted(std::string_view pass) const {
  return std::find(options_.dump_after.begin(), options_.dump_after.end(), pass) !=
         options_.dump_after.end();
}

void PassDumps::add(std::string_view pass, const std::string& stem, const std::string& json,
                    std::string dot) {
  const std::string name = stem + ".after-" + std::string(pass);
  files_.emplace_back(name + ".json", json);
  files_.emplace_back(name + ".dot", std::move(dot));
}

bool PassDumps::kernel(std::string_view pass, const std::string& stem, const ir::Kernel& kernel,
                       const ir::SourceLocation& declared_at, ir::Diagnostics& diags) {
  if (kernel.multi_tile)
    return tile_kernel(pass, stem, kernel, {}, declared_at, diags);
  if (!wanted(pass))
    return true;
  const passes::WarpSplit no_plan;
  add(pass, stem, text_of(dump::to_json(dump::DumpKind::ScheduleTree, kernel, no_plan)),
      dump::to_dot(dump::DumpKind::ScheduleTree, kernel, no_plan));
  return true;
}

void PassDumps::warp_plan(passes::WarpSplitPass pass, const std::string& stem,
                          const ir::Kernel& kernel, const passes::WarpSplit& plan) {
  const std::string_view name = passes::name_of(pass);
  if (!wanted(name))
    return;
  const dump::DumpKind kind = plan_dump(pass);
  add(name, stem, text_of(dump::to_json(kind, kernel, plan)), dump::to_dot(kind, kernel, plan));
}

bool PassDumps::tile_kernel(std::string_view pass, const std::string& stem,
                            const ir::Kernel& kernel, const schedules::TileSchedules& schedules,
                            const ir::SourceLocation& declared_at, ir::Diagnostics& diags) {
  if (!wanted(pass))
    return true;
  try {
    add(pass, stem, text_of(dump::tile_steps_json(kernel, schedules)),
        dump::tile_steps_dot(kernel, schedules));
  } catch (const std::exception& e) {
    diags.error(declared_at, "internal error: cannot write the IR of kernel '" + kernel.name +
                                 "' after pass " + std::string(pass) + ": " + e.what());
    return false;
  }
  return true;
}

} // namespace s2p::pass_manager
