#include "schedules/tile_schedules.h"

#include "schedules/schedule_templates.h"

namespace s2p::schedules {

using namespace s2p::ir;

namespace {

std::string schedule_name(const Kernel& kernel, std::size_t step) {
  const bool several = kernel.multi_tile->steps.size() > 1;
  return kernel.name + (several ? "." + std::to_string(step + 1) : "") + ".schedule.json";
}

std::string file_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('.'));
}

} // namespace

TileSchedules plan_tile_schedules(const Kernel& kernel, const ScheduleOptions& options) {
  TileSchedules result;
  const MultiTile& multi = *kernel.multi_tile;
  result.notes.resize(multi.steps.size());
  const std::string stem = file_stem(kernel.loc.file) + ".";
  for (std::size_t k = 0; k < multi.steps.size(); ++k) {
    const TileStep& step = multi.steps[k];
    const std::string name = schedule_name(kernel, k);
    const std::string what = step.kind == TileStep::Kind::Forall
                                 ? std::string("forall")
                                 : std::string(library_name(step.kind));
    if (step.kind != TileStep::Kind::Forall && multi.tiles < 2) {
      // A ring of one tile has no steps (the runtime returns at once).
      result.notes[k] = "one tile: nothing moves";
      continue;
    }
    const ScheduleTemplate planned =
        step.kind == TileStep::Kind::Forall
            ? forall_schedule_template(kernel, step, options.fabric_file, options.tile_sram_bytes)
            : ring_schedule_template(kernel, step, options.fabric_file);
    if (!planned.error.empty()) {
      result.errors.emplace_back(step.loc, "kernel '" + kernel.name + "': the " + what +
                                               " does not fit in tile memory: " + planned.error +
                                               " (at the extents of " + multi.extents_from + ")");
      continue;
    }
    if (planned.fails_when_run) {
      // What seq2par accepts, the program runs: the runtime would refuse this step with these
      // extents, so the kernel is refused here, at the step.
      result.errors.emplace_back(step.loc, "kernel '" + kernel.name + "': the " + what +
                                               " fails when the kernel runs with the extents of " +
                                               multi.extents_from + ": " + planned.reason);
      continue;
    }
    const std::string planned_for =
        stem + name + ", planned for the extents of " + multi.extents_from;
    if (planned.schedule && step.kind == TileStep::Kind::Forall) {
      result.notes[k] =
          "schedule: " + planned_for + "; other extents are planned when the kernel runs";
      result.files.emplace_back(name, planned.schedule->dump(1) + "\n");
    } else if (planned.schedule) {
      result.notes[k] = planned_for;
      result.files.emplace_back(name, planned.schedule->dump(1) + "\n");
    } else if (step.kind == TileStep::Kind::Forall) {
      result.notes[k] = "no schedule template: " + planned.reason +
                        "; the owner-copy moves are planned when the kernel runs";
    } else if (auto schedule = ring_placeholder_template(kernel, step, options.tiles_per_chip)) {
      // The runtime makes the schedule with the real S when the kernel runs.
      (*schedule)["generator"] = "seq2par: " + what + "(" + step.field + ") at line " +
                                 std::to_string(step.loc.line) +
                                 "; S (bytes per tile) is set when the kernel runs";
      result.notes[k] = stem + name + " with one element per tile (" + planned.reason + ")";
      result.files.emplace_back(name, schedule->dump(1) + "\n");
    }
  }
  return result;
}

} // namespace s2p::schedules
