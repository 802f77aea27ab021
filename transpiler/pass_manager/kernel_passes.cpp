#include "pass_manager/kernel_passes.h"

#include "dump/dumps.h"
#include "dump/tile_dumps.h"
#include "emit/multi_tile_code.h"
#include "emit/warp_code.h"
#include "passes/check_tile_memory.h"
#include "passes/warp_split.h"
#include "pass_manager/kernel_rewrites.h"
#include "pass_manager/kernel_versions.h"
#include "pass_manager/pass_dumps.h"
#include "pass_manager/tile_kernel_passes.h"
#include "schedules/code_estimate.h"
#include "schedules/tile_schedules.h"

#include <algorithm>
#include <exception>

namespace s2p::pass_manager {
namespace {

// The warp-split dumps of one kernel (or one version of it) under `stem`.<dump>.{json,dot}.
void add_warp_dumps(const ir::Kernel& kernel, const passes::WarpSplit& plan,
                    const TranspileOptions& options, const std::string& stem,
                    std::vector<std::pair<std::string, std::string>>& files) {
  for (const dump::DumpKind kind : options.dumps) {
    if (dump::applies_to_tile_kernels(kind))
      continue;
    const std::string name = stem + "." + std::string(dump::name_of(kind));
    files.emplace_back(name + ".json",
                       dump::to_json(kind, kernel, plan)
                               .dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                           "\n");
    files.emplace_back(name + ".dot", dump::to_dot(kind, kernel, plan));
  }
}

// Adds the plan's operations per warp (calls, waits, signals; a symbolic loop's steady-state
// period once, plus its loop control) to `operations`, indexed like `plan.warps`.
void add_warp_operations(const passes::WarpSplit& plan, std::vector<std::int64_t>& operations) {
  constexpr std::int64_t kLoopControlOperations = 2; // the bound test and the increment
  operations.resize(std::max(operations.size(), plan.warps.size()), 0);
  const auto slot = [&](int warp) {
    return static_cast<std::size_t>(
        std::lower_bound(plan.warps.begin(), plan.warps.end(), warp) - plan.warps.begin());
  };
  for (const ir::Region& region : plan.regions) {
    if (region.kind == ir::Region::Kind::Expanded) {
      for (const ir::WarpProgram& warp : region.warps)
        operations[slot(warp.warp)] += static_cast<std::int64_t>(warp.ops.size());
      continue;
    }
    for (const auto& warp : region.loop.warps) {
      std::int64_t ops = kLoopControlOperations;
      for (const auto& residue : warp.residues)
        ops += static_cast<std::int64_t>(residue.size());
      operations[slot(warp.warp)] += ops;
    }
  }
}

// The warp-split plans of a kernel's versions, their code checked beside the pools.
struct PlannedVersions {
  KernelOutput out;
  std::vector<std::string> bodies;
  bool any_call = false;
  // Refused only for its size: the warps' code does not fit beside the pools, or expanding its
  // loops passed --max-calls. Keeping its long constant loops as loops may make it fit.
  bool too_large = false;
  int constant_loops_kept = 0;
};

// What planning a warp kernel reads beside the kernel: the options, and where its errors and
// dumps go.
struct WarpKernelContext {
  const TranspileOptions& options;
  const std::string& display_name;
  const ir::SourceLocation& declared_at;
  PassDumps& pass_dumps;
};

std::string too_many_warps(const ir::Kernel& kernel, int warps, const FabricTarget& fabric) {
  return "kernel '" + kernel.name + "' runs on " + std::to_string(warps) +
         " warps but a tile has " + std::to_string(fabric.hardware_threads) +
         " hardware threads (" +
         (fabric.file.empty() ? std::string("the simulator's default; a fabric file with more "
                                            "threads per tile: --fabric")
                              : fabric.file) +
         "): put calls on fewer warps";
}

PlannedVersions plan_versions(const ir::Kernel& kernel, const std::vector<KernelVersion>& versions,
                              const passes::WarpSplitOptions& split_options,
                              const WarpKernelContext& context, ir::Diagnostics& diags) {
  const TranspileOptions& options = context.options;
  const auto stem = [&](std::size_t v) {
    return versions.size() == 1 ? kernel.name : kernel.name + ".v" + std::to_string(v + 1);
  };
  PlannedVersions planned;
  KernelOutput& out = planned.out;
  out.summary = {kernel.name, 0, 0, 0, 0, {}, {}};
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const ir::Kernel& version = versions[v].kernel;
    const auto plan = passes::run_warp_split(
        version, split_options, diags,
        [&](passes::WarpSplitPass pass, const passes::WarpSplit& so_far) {
          context.pass_dumps.warp_plan(pass, stem(v), version, so_far);
        });
    planned.constant_loops_kept += plan.constant_loops_kept();
    if (diags.has_errors()) {
      planned.too_large = plan.call_limit_reached;
      return planned;
    }
    planned.any_call |= !plan.regions.empty();
    planned.bodies.push_back(plan.regions.empty()
                                 ? "{\n}"
                                 : emit::emit_kernel_body(version, plan, {context.display_name}));
    out.summary.warps = std::max(out.summary.warps, static_cast<int>(plan.warps.size()));
    out.summary.channels = std::max(out.summary.channels, plan.channel_count);
    out.summary.calls += plan.call_count();
    add_warp_operations(plan, out.summary.warp_operations);
    add_warp_dumps(version, plan, options, stem(v), out.summary.files);
  }
  if (out.summary.warps > options.fabric.hardware_threads) {
    diags.error(context.declared_at, too_many_warps(kernel, out.summary.warps, options.fabric));
    return planned;
  }
  // Planned: the warps' code takes room on the tile beside the pools.
  passes::TileCode code;
  for (const auto& image : schedules::warp_code_images(out.summary.warp_operations)) {
    code.bytes += image.bytes;
    ++code.images;
  }
  if (planned.any_call && !passes::check_tile_memory(kernel, split_options.tile_sram_bytes, diags, code))
    planned.too_large = true; // the pools alone fit: run_warp_split checked them first
  return planned;
}

// A kernel refused for its size, planned again with its long constant loops kept: what the
// second try reports is shown after the first try's errors, as notes, when it fails too.
void explain_second_try(const ir::Diagnostics& second, const PlannedVersions& retried,
                        ir::Diagnostics& diags) {
  for (const ir::Diagnostic& d : second.items()) {
    if (d.level == ir::Diagnostic::Level::Note)
      diags.note(d.loc, d.message);
    else if (d.level == ir::Diagnostic::Level::Error && retried.constant_loops_kept > 0)
      diags.note(d.loc, "with its long constant loops kept as loops, the kernel is refused too: " +
                            d.message);
  }
}

ir::Diagnostics without_notes(const ir::Diagnostics& diags) {
  ir::Diagnostics kept;
  for (const ir::Diagnostic& d : diags.items()) {
    if (d.level == ir::Diagnostic::Level::Error)
      kept.error(d.loc, d.message);
    else if (d.level == ir::Diagnostic::Level::Warning)
      kept.warning(d.loc, d.message);
  }
  return kept;
}

std::optional<KernelOutput> run_warp_kernel(const ir::Kernel& extracted,
                                            const ir::SourceLocation& declared_at,
                                            const TranspileOptions& options,
                                            const std::string& display_name,
                                            ir::Diagnostics& diags, PassDumps& pass_dumps) {
  // --auto-warps: the calls without a warp annotation get theirs first; every later stage
  // (and the dumps, which show the choice) sees the assigned kernel.
  std::optional<ir::Kernel> assigned;
  if (options.passes.auto_warps) {
    assigned = extracted;
    passes::assign_warps(*assigned, *options.passes.auto_warps);
    if (!pass_dumps.kernel("assign-warps", assigned->name, *assigned, declared_at, diags))
      return std::nullopt;
  }
  const ir::Kernel& kernel = assigned ? *assigned : extracted;
  // Conditions on parameters alone: a version per combination of their values, each planned
  // on its own (its dumps under <kernel>.v<k>).
  const auto versions = kernel_versions(kernel, diags);
  if (!versions)
    return std::nullopt;
  for (std::size_t v = 0; v < versions->size(); ++v)
    if (!pass_dumps.kernel("kernel-versions",
                           versions->size() == 1 ? kernel.name
                                                 : kernel.name + ".v" + std::to_string(v + 1),
                           (*versions)[v].kernel, declared_at, diags))
      return std::nullopt;
  // Loops with constant trip counts are expanded: the plan is exact. When the expanded kernel
  // does not fit a tile, its long constant loops are kept as loops instead (as loops with a
  // run-time trip count are), so the kernel is refused only if that does not fit either.
  const WarpKernelContext context{options, display_name, declared_at, pass_dumps};
  const std::size_t expanded_dumps = pass_dumps.mark();
  ir::Diagnostics expanded_diags;
  PlannedVersions planned =
      plan_versions(kernel, *versions, options.passes, context, expanded_diags);
  if (planned.too_large) {
    passes::WarpSplitOptions keep_loops = options.passes;
    keep_loops.cdfg.keep_long_constant_loops = true;
    ir::Diagnostics kept_diags;
    const std::size_t kept_dumps = pass_dumps.mark();
    PlannedVersions kept = plan_versions(kernel, *versions, keep_loops, context, kept_diags);
    if (!kept_diags.has_errors()) {
      pass_dumps.drop(expanded_dumps, kept_dumps);
      planned = std::move(kept);
      expanded_diags = without_notes(kept_diags); // why other loops stayed expanded: moot now
    } else {
      pass_dumps.drop(kept_dumps, pass_dumps.mark());
      explain_second_try(kept_diags, kept, expanded_diags);
    }
  }
  diags.append(expanded_diags);
  if (diags.has_errors())
    return std::nullopt;
  KernelOutput out = std::move(planned.out);
  if (!planned.any_call)
    diags.warning(declared_at,
                  "kernel '" + kernel.name + "' calls no intrinsic; its body is left unchanged");
  else
    out.body = select_version(*versions, planned.bodies);
  return out;
}

// The multi-tile dumps `--dump` asks for, under <kernel>.<dump>.{json,dot}. Lowering a step to
// its access relations cannot fail on what the front end accepted; if it does, that is
// seq2par's bug, reported at the kernel rather than as a crash.
bool add_tile_dumps(const ir::Kernel& kernel, const schedules::TileSchedules& schedules,
                    const TranspileOptions& options, const ir::SourceLocation& declared_at,
                    ir::Diagnostics& diags, std::vector<std::pair<std::string, std::string>>& dumps) {
  for (const dump::DumpKind kind : options.dumps) {
    if (!dump::applies_to_tile_kernels(kind))
      continue;
    const std::string stem = kernel.name + "." + std::string(dump::name_of(kind));
    const bool access = kind == dump::DumpKind::Access;
    try {
      const nlohmann::ordered_json json =
          access ? dump::access_json(kernel) : dump::tile_steps_json(kernel, schedules);
      dumps.emplace_back(stem + ".json",
                         json.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                             "\n");
      dumps.emplace_back(stem + ".dot", access ? dump::access_dot(kernel)
                                               : dump::tile_steps_dot(kernel, schedules));
    } catch (const std::exception& e) {
      diags.error(declared_at, "internal error: cannot write the " + std::string(dump::name_of(kind)) +
                                   " dump of kernel '" + kernel.name + "': " + e.what());
      return false;
    }
  }
  return true;
}

std::string too_many_tiles(const ir::Kernel& kernel, const FabricTarget& fabric) {
  return "kernel '" + kernel.name + "' spans " + std::to_string(kernel.multi_tile->tiles) +
         " tiles but the fabric has " + std::to_string(fabric.tiles) + " (" +
         (fabric.description.empty()
              ? std::string("--fabric-tiles; a fabric file with more chips: --fabric")
              : fabric.description) +
         ")";
}

std::optional<KernelOutput> run_multi_tile_kernel(const ir::Kernel& kernel,
                                                  const ir::SourceLocation& declared_at,
                                                  const TranspileOptions& options,
                                                  const std::string& display_name,
                                                  ir::Diagnostics& diags, PassDumps& pass_dumps) {
  if (kernel.multi_tile->tiles > options.fabric.tiles) {
    diags.error(declared_at, too_many_tiles(kernel, options.fabric));
    return std::nullopt;
  }
  // --extents names this kernel: its templates are planned for those extents.
  ir::Kernel planned_kernel = kernel;
  if (auto given = apply_given_extents(kernel, options.given_extents)) {
    if (!pass_dumps.kernel("given-extents", kernel.name, *given, declared_at, diags))
      return std::nullopt;
    planned_kernel = std::move(*given);
  }
  // Each task kernel through the warp-split passes; their dumps under the task's own name.
  const auto plan_task = [&](const ir::Kernel& task) {
    return run_warp_kernel(task, task.loc, options, display_name, diags, pass_dumps);
  };
  KernelSummary tasks;
  if (!split_tasks_into_warps(planned_kernel, plan_task, diags, tasks) ||
      !pass_dumps.tile_kernel("split-tasks-into-warps", kernel.name, planned_kernel, {},
                              declared_at, diags))
    return std::nullopt;
  schedules::TileSchedules schedules;
  try {
    schedules = schedules::plan_tile_schedules(
        planned_kernel, {options.fabric.tiles_per_chip, options.fabric.file,
                         static_cast<std::uint64_t>(options.passes.tile_sram_bytes)});
  } catch (const std::exception& e) { // a generator refusing its input is our bug
    diags.error(declared_at, "internal error: cannot make the schedule templates of kernel '" +
                                 kernel.name + "': " + e.what());
    return std::nullopt;
  }
  for (const auto& [at, error] : schedules.errors)
    diags.error(at, error);
  if (!schedules.errors.empty() ||
      !pass_dumps.tile_kernel("plan-tile-schedules", kernel.name, planned_kernel, schedules,
                              declared_at, diags))
    return std::nullopt;
  KernelOutput out;
  out.body = emit::emit_multi_tile_body(planned_kernel, {display_name}, schedules);
  std::vector<std::pair<std::string, std::string>> dumps;
  if (!add_tile_dumps(planned_kernel, schedules, options, declared_at, diags, dumps))
    return std::nullopt;
  out.summary = {kernel.name,
                 tasks.warps,
                 tasks.channels,
                 static_cast<int>(kernel.multi_tile->steps.size()),
                 kernel.multi_tile->tiles,
                 std::move(schedules.files),
                 {}};
  for (auto* files : {&dumps, &tasks.files})
    for (auto& file : *files)
      out.summary.files.push_back(std::move(file));
  return out;
}

} // namespace

std::optional<KernelOutput> run_kernel_passes(const ir::Kernel& kernel,
                                                const ir::SourceLocation& declared_at,
                                                const TranspileOptions& options,
                                                const std::string& display_name,
                                                ir::Diagnostics& diags) {
  // --plan: the kernel as the tuning plan sets it (resource-map weights, fusions, splits,
  // variants, warp overrides), one rewrite after another.
  DumpFiles after_passes;
  PassDumps pass_dumps(options, after_passes);
  std::optional<ir::Kernel> tuned;
  for (const KernelRewritePass pass : all_kernel_rewrites()) {
    if (!rewrites(pass, options, kernel.name))
      continue;
    auto rewritten = run_rewrite(pass, tuned ? *tuned : kernel, options, declared_at, diags);
    if (!rewritten)
      return std::nullopt;
    tuned = std::move(rewritten);
    if (!pass_dumps.kernel(name_of(pass), kernel.name, *tuned, declared_at, diags))
      return std::nullopt;
  }
  const ir::Kernel& planned = tuned ? *tuned : kernel;
  auto out = planned.multi_tile
                 ? run_multi_tile_kernel(planned, declared_at, options, display_name, diags, pass_dumps)
                 : run_warp_kernel(planned, declared_at, options, display_name, diags, pass_dumps);
  if (out)
    for (auto& file : after_passes)
      out->summary.files.push_back(std::move(file));
  return out;
}

} // namespace s2p::pass_manager
